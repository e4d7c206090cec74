#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// The benchmark's output: one `key=value` line per figure, nothing secret.
enum Report {
    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// `yes` or `no`.
    static func met(_ condition: Bool) -> String { condition ? "yes" : "no" }

    /// The line of one operation: `op=get sync=full n=10000 ops_per_s=… p50_us=… p99_us=… impl=hardtack`.
    static func operation(_ op: Operation, sync: SyncMode, summary: LatencySummary, implementation: String) -> String {
        "op=\(op.rawValue) sync=\(sync.rawValue) n=\(summary.count) ops_per_s=\(Int(summary.opsPerSecond.rounded())) "
            + "p50_us=\(fixed(summary.p50)) p99_us=\(fixed(summary.p99)) impl=\(implementation)"
    }

    /// The target ratio of Hardtack's p50 over the direct p50 for `op` under `sync` (issue 13): a get
    /// within 1.3×; a put, update or delete within 1.2× under FULL and 1.5× under NORMAL.
    static func target(_ op: Operation, sync: SyncMode) -> Double {
        op == .get ? 1.3 : (sync == .full ? 1.2 : 1.5)
    }

    /// The target for bytes on disk per item after a checkpoint (issue 13).
    static let bytesPerItemTarget = 900.0

    /// Writes a line to standard output at once, unbuffered (the run is long; show progress as it goes).
    static func line(_ text: String) {
        emit(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes `hardtack-bench: message` to standard error.
    static func error(_ message: String) {
        emit("hardtack-bench: \(message)\n", to: STDERR_FILENO)
    }

    private static func emit(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            guard written > 0 else { return }
            offset += written
        }
    }
}
