import Data
import Domain
import Foundation
import StoreCore

/// A contention run, whatever the backend: the counters made, contender processes started together,
/// their reports merged, then the counters read back through a new handle, the store verified, the
/// figures said and the checks made (no update lost, none applied without acknowledgment, no busy or
/// other errors).
enum ContentionRun {
    /// Runs `worker` (`contender`, `pg-contender`) in `processes` processes of `threads` threads on the
    /// store `open` opens; `arguments` and `environment` tell the workers where it is.
    static func run(
        _ context: ScenarioContext, worker: String, arguments: [String], environment: [String: String] = [:],
        processes: Int, threads: Int, counters: Int, seconds: Int, ownHandles: String,
        open: () throws -> any EngineBackedStore
    ) {
        do {
            let store = try open()
            for index in 0..<counters {
                try store.add(ContentionWorker.counter(index), data: SecretBytes(utf8: "0"))
            }
        } catch {
            context.fail("cannot create the store: \(error)")
            return
        }
        let start = Date().timeIntervalSince1970 + 1.5
        var children: [ChildProcess] = []
        for process in 0..<processes {
            do {
                children.append(
                    try context.startWorker(
                        worker,
                        arguments + [
                            "--threads", "\(threads)", "--counters", "\(counters)", "--seconds", "\(seconds)",
                            "--start", "\(start)", "--seed", "\(context.seed &+ UInt64(process))",
                        ], environment: environment))
            } catch {
                context.fail("cannot start a contender: \(error)")
                return
            }
        }
        var total = ContentionWorker.Report(increments: Array(repeating: 0, count: counters))
        for (index, child) in children.enumerated() {
            let reader = LineReader(child.stdoutPipe!)
            guard case .line(let line) = reader.next(timeout: Double(seconds) + 120),
                let report = try? JSONDecoder().decode(ContentionWorker.Report.self, from: Data(line.utf8))
            else {
                child.killAndReap()
                context.fail("contender \(index) gave no report (\(context.workerErrors(worker)))")
                continue
            }
            let termination = child.wait(timeout: 30) ?? child.killAndReap()
            context.check(termination == .exited(0), "contender \(index) ended with \(String(describing: termination))")
            total.merge(report)
        }
        judge(
            context, total: total, processes: processes, threads: threads, counters: counters, seconds: seconds,
            ownHandles: ownHandles, open: open)
    }

    /// Reads the counters through the handle `open` makes, and judges `total` against them.
    private static func judge(
        _ context: ScenarioContext, total: ContentionWorker.Report, processes: Int, threads: Int, counters: Int,
        seconds: Int, ownHandles: String, open: () throws -> any EngineBackedStore
    ) {
        var finals: [Int] = []
        do {
            let store = try open()
            for index in 0..<counters {
                finals.append(Int(try store.findString(ContentionWorker.counter(index))) ?? -1)
            }
            context.check(try store.verify().isSound, "the store is not sound after the run")
        } catch {
            context.fail("cannot read the counters: \(error)")
            return
        }
        let lost = zip(total.increments, finals).map { max(0, $0 - $1) }.reduce(0, +)
        let phantom = zip(total.increments, finals).map { max(0, $1 - $0) }.reduce(0, +)
        let latencies = total.latencies.sorted()
        let reads = total.readLatencies.sorted()
        context.say(
            "\(processes) processes × \(threads) threads (\(ownHandles), reopened \(total.reopens) times), "
                + "\(counters) counters, \(seconds) s")
        context.say(
            "read-modify-write transactions \(total.transactions) ("
                + String(format: "%.0f/s", Double(total.transactions) / Double(seconds))
                + "), plain reads \(total.reads); counters sum \(finals.reduce(0, +)) = acknowledged "
                + "\(total.increments.reduce(0, +))")
        context.say(
            "lost updates \(lost), unacknowledged but applied \(phantom), busy errors \(total.busy), other errors "
                + "\(total.errors.count)")
        context.say(
            "latency of a read-modify-write: p50 \(millis(latencies, 0.5)), p99 \(millis(latencies, 0.99)), max "
                + "\(millis(latencies, 1)); of a read: p50 \(millis(reads, 0.5)), p99 \(millis(reads, 0.99))")
        for error in Set(total.errors).prefix(5) { context.say("  error: \(error)") }
        context.check(total.transactions > 0, "no transaction succeeded")
        context.check(lost == 0, "\(lost) updates lost")
        context.check(phantom == 0, "\(phantom) updates applied without acknowledgment")
        context.check(total.busy == 0, "\(total.busy) busy errors")
        context.check(total.errors.isEmpty, "\(total.errors.count) errors")
    }

    /// The `quantile` latency of sorted microseconds, in milliseconds.
    private static func millis(_ sorted: [Int], _ quantile: Double) -> String {
        guard !sorted.isEmpty else { return "-" }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * quantile).rounded(.down)))
        return String(format: "%.1f ms", Double(sorted[index]) / 1000)
    }
}
