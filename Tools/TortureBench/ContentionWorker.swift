import BenchSupport
import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `worker contender`: several threads doing read-modify-write on shared counters in one store until
/// a deadline, each in one transaction: read the counter, write it plus one. Half the threads open a
/// handle of their own (reopened now and then), half share one. Prints one line of JSON: operations,
/// increments made per counter, busy and other errors, and every latency in microseconds.
///
/// Arguments: `--store PATH`, `--key HEX`, `--threads N`, `--counters N`, `--seconds N`, `--start EPOCH`
/// (all workers start together), `--seed N`.
enum ContentionWorker {
    /// What one worker reports.
    struct Report: Codable {
        var transactions = 0
        var reads = 0
        var increments: [Int] = []
        var busy = 0
        var errors: [String] = []
        var latencies: [Int] = []
        var readLatencies: [Int] = []
        var reopens = 0
    }

    static func counter(_ index: Int) -> ItemAttributes {
        .genericPassword(service: "contention", account: "counter-\(index)")
    }

    /// The worker on a SQLite store file; returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let options = TrialArguments(arguments)
        guard let path = options["store"], let key = options["key"].flatMap({ bytes(fromHex: $0) }) else { return 2 }
        let source = KeySource.key(SecretBytes(key))
        return contend(options, threads: 4) { try SQLiteSecureItemStore.open(at: path, keySource: source) }
    }

    /// The workload on stores `open` opens, whatever the backend: `--threads N` threads (half share one
    /// handle, half open their own and reopen it now and then), `--counters N`, `--seconds N` from
    /// `--start EPOCH`. Prints the merged ``Report`` as one line of JSON; returns the exit status.
    static func contend(
        _ options: TrialArguments, threads defaultThreads: Int, open: @escaping @Sendable () throws -> any SecureItemStore
    ) -> Int32 {
        let threads = options.int("threads", defaultThreads)
        let counters = options.int("counters", 4)
        let start = Double(options["start"] ?? "") ?? Date().timeIntervalSince1970
        let deadline = start + Double(options.int("seconds", 5))
        let shared: any SecureItemStore
        do {
            shared = try open()
        } catch {
            emit("{\"errors\":[\"open: \(error)\"]}")
            return 1
        }
        let reports = Mutex<[Report]>([])
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            let seed = options.seed &+ UInt64(thread)
            let ownsHandle = thread % 2 == 0
            Thread {
                let report = work(
                    open: open, shared: ownsHandle ? nil : shared, counters: counters, start: start, deadline: deadline,
                    seed: seed)
                reports.withLock { $0.append(report) }
                done.leave()
            }.start()
        }
        done.wait()
        var total = Report(increments: Array(repeating: 0, count: counters))
        for report in reports.withLock({ $0 }) { total.merge(report) }
        emit(String(decoding: (try? JSONEncoder().encode(total)) ?? Data(), as: UTF8.self))
        return 0
    }

    private static func work(
        open: () throws -> any SecureItemStore, shared: (any SecureItemStore)?, counters: Int, start: Double,
        deadline: Double, seed: UInt64
    ) -> Report {
        var random = SeededGenerator(seed: seed)
        var report = Report(increments: Array(repeating: 0, count: counters))
        var own: (any SecureItemStore)?
        func store() throws -> any SecureItemStore {
            if let shared { return shared }
            if let own { return own }
            let opened = try open()
            own = opened
            return opened
        }
        let wait = start - Date().timeIntervalSince1970
        if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
        while Date().timeIntervalSince1970 < deadline {
            let index = Int.random(in: 0..<counters, using: &random)
            let began = DispatchTime.now().uptimeNanoseconds
            do {
                let handle = try store()
                if random.chance(0.1) {
                    _ = try handle.find(counter(index), limit: .one, returning: .data)
                    report.reads += 1
                    report.readLatencies.append(Int((DispatchTime.now().uptimeNanoseconds - began) / 1000))
                    continue
                }
                try handle.transaction { transaction in
                    let current = try transaction.find(counter(index), limit: .one, returning: .data).first?.data
                    let value = Int(current?.revealedString() ?? "") ?? -1_000_000
                    try transaction.addOrUpdate(counter(index), data: SecretBytes(utf8: "\(value + 1)"))
                }
                report.transactions += 1
                report.increments[index] += 1
                report.latencies.append(Int((DispatchTime.now().uptimeNanoseconds - began) / 1000))
                // Handles of their own are closed and reopened now and then: opening races writers too.
                if shared == nil && random.chance(0.02) {
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
        return report
    }
}
