import BenchSupport
import Data
import Domain
import Foundation
import PostgreSQLStore
import StoreCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `worker pg-contender`: ``ContentionWorker`` on a PostgreSQL store: threads doing read-modify-write
/// on shared counters, each in one transaction, until a deadline; half the threads open a handle (a
/// connection) of their own, half share one. Prints one ``ContentionWorker/Report`` as JSON.
///
/// The URI comes in `HARDTACK_TORTURE_PG`; arguments: `--key HEX`, `--threads N`, `--counters N`,
/// `--seconds N`, `--start EPOCH`, `--seed N`.
enum PGContentionWorker {
    /// Runs the worker; returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let options = TrialArguments(arguments)
        guard let uri = ProcessInfo.processInfo.environment["HARDTACK_TORTURE_PG"],
            let key = options["key"].flatMap({ bytes(fromHex: $0) })
        else { return 2 }
        let threads = options.int("threads", 3)
        let counters = options.int("counters", 4)
        let start = Double(options["start"] ?? "") ?? Date().timeIntervalSince1970
        let deadline = start + Double(options.int("seconds", 5))
        let source = KeySource.key(SecretBytes(key))
        let shared: PostgreSQLSecureItemStore
        do {
            shared = try PostgreSQLSecureItemStore.open(uri: uri, keySource: source)
        } catch {
            emit("{\"errors\":[\"open: \(error)\"]}")
            return 1
        }
        let reports = Mutex<[ContentionWorker.Report]>([])
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            let seed = options.seed &+ UInt64(thread)
            let ownsHandle = thread % 2 == 0
            Thread {
                var random = SeededGenerator(seed: seed)
                var report = ContentionWorker.Report(increments: Array(repeating: 0, count: counters))
                var own: PostgreSQLSecureItemStore?
                let wait = start - Date().timeIntervalSince1970
                if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
                while Date().timeIntervalSince1970 < deadline {
                    let index = Int.random(in: 0..<counters, using: &random)
                    let began = DispatchTime.now().uptimeNanoseconds
                    do {
                        if !ownsHandle || own == nil {
                            own = ownsHandle ? try PostgreSQLSecureItemStore.open(uri: uri, keySource: source) : shared
                        }
                        let handle = own!
                        if random.chance(0.1) {
                            _ = try handle.find(ContentionWorker.counter(index), limit: .one, returning: .data)
                            report.reads += 1
                            report.readLatencies.append(Int((DispatchTime.now().uptimeNanoseconds - began) / 1000))
                            continue
                        }
                        try handle.transaction { transaction in
                            let current = try transaction.find(ContentionWorker.counter(index), limit: .one, returning: .data)
                            let value = Int(current.first?.data?.revealedString() ?? "") ?? -1_000_000
                            try transaction.addOrUpdate(ContentionWorker.counter(index), data: SecretBytes(utf8: "\(value + 1)"))
                        }
                        report.transactions += 1
                        report.increments[index] += 1
                        report.latencies.append(Int((DispatchTime.now().uptimeNanoseconds - began) / 1000))
                        if ownsHandle && random.chance(0.02) {
                            own = nil
                            report.reopens += 1
                        }
                    } catch let error as SecureStoreError {
                        if case .storage(let failure) = error, failure.kind == .busy {
                            report.busy += 1
                        } else {
                            report.errors.append("\(error)")
                        }
                    } catch {
                        report.errors.append("\(error)")
                    }
                }
                reports.withLock { $0.append(report) }
                done.leave()
            }.start()
        }
        done.wait()
        var total = ContentionWorker.Report(increments: Array(repeating: 0, count: counters))
        for report in reports.withLock({ $0 }) { total.merge(report) }
        emit(String(decoding: (try? JSONEncoder().encode(total)) ?? Data(), as: UTF8.self))
        return 0
    }
}
