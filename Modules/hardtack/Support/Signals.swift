#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch
import Foundation

/// The signals that end a server command (`serve`, `gateway`): SIGINT and SIGTERM.
enum Signals {
    /// Suspends until SIGINT or SIGTERM arrives.
    static func waitForTermination() async {
        let queue = DispatchQueue(label: "hardtack.signals")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: signalNumber, queue: queue))
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let latch = SignalLatch(continuation)
            for source in sources {
                source.setEventHandler { latch.fire() }
                source.resume()
            }
        }
        for source in sources { source.cancel() }
    }
}

/// Resumes a continuation once, from whichever signal comes first. Guarded by a pthread mutex (an
/// `NSLock`) rather than Synchronization's `Mutex`, whose hand-off ThreadSanitizer cannot see on Linux.
private final class SignalLatch: Sendable {
    private let lock = NSLock()
    // Safety: read and written only while `lock` is held.
    private nonisolated(unsafe) var continuation: CheckedContinuation<Void, Never>?

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func fire() {
        lock.lock()
        defer { lock.unlock() }
        continuation?.resume()
        continuation = nil
    }
}
