#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CProcessHardening
import Dispatch
import Foundation

/// The signals that end a server command (`serve`, `gateway`): SIGINT and SIGTERM. They are caught before
/// the command says it is ready (``catchTermination()``), so that one sent as soon as it says so is kept
/// until the command waits for it (``Termination/wait()``), never lost: with a Dispatch signal source,
/// installed as the wait began, a SIGTERM sent right after the ready line could land after the signal was
/// set to be ignored and before the source was registered, and the server ran on.
enum Signals {
    /// Catches SIGINT and SIGTERM from now on (a handler that writes to a pipe), and returns the wait for the
    /// first of them. Called once in a process, by the command that serves. A Dispatch signal source made for
    /// either signal afterwards would put libdispatch's handler in this one's place: a server command must
    /// not make one (``Interruptible`` is for sign-in only).
    static func catchTermination() -> Termination {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return Termination(readEnd: nil) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // Never blocks the handler: a pipe full of signals already says enough.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        guard hardtack_catch_termination(ends[1]) == 0 else {
            close(ends[0])
            close(ends[1])
            return Termination(readEnd: nil)
        }
        return Termination(readEnd: ends[0])
    }

    /// SIGINT or SIGTERM, caught since ``Signals/catchTermination()``.
    struct Termination: Sendable {
        /// The pipe's read end, or `nil` when the system gave no pipe or handler (then ``wait()`` falls back
        /// on a Dispatch signal source).
        let readEnd: Int32?

        /// Suspends until SIGINT or SIGTERM has come: at once if one came already.
        func wait() async {
            guard let readEnd else { return await Signals.waitWithDispatch() }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // A thread of its own, blocked in read: the server's threads are not held.
                Thread {
                    Self.awaitSignal(readEnd)
                    continuation.resume()
                }.start()
            }
        }

        /// Runs `stop` to its end, unless SIGINT or SIGTERM comes again first: returns `true` when `stop`
        /// ended, `false` at such a second signal (then `stop` is left running, for the process to exit on).
        /// Signals within `quiet` of this call are not counted, so that one Ctrl-C that reaches the process
        /// twice (from the terminal and from a wrapper that passes it on) is not taken for a second.
        func stop(_ stop: @escaping @Sendable () async -> Void, quiet: Duration = .seconds(1)) async -> Bool {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let latch = SignalLatch(continuation)
                Task {
                    await stop()
                    latch.fire(true)
                }
                guard let readEnd else { return }  // without the pipe, only `stop` ends the wait
                Thread {
                    Thread.sleep(forTimeInterval: quiet / .seconds(1))
                    Self.drain(readEnd)
                    Self.awaitSignal(readEnd)
                    latch.fire(false)
                }.start()
            }
        }

        /// Blocks this thread until the pipe gives one signal. The signals are unblocked on this thread too
        /// (threads Dispatch starts block most signals, and this one inherits that mask), so that a signal
        /// does not depend on another thread to land.
        private static func awaitSignal(_ readEnd: Int32) {
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGINT)
            sigaddset(&signals, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
        }

        /// Reads whatever signals the pipe holds now, without waiting.
        private static func drain(_ readEnd: Int32) {
            var ready = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            var bytes = [UInt8](repeating: 0, count: 64)
            while poll(&ready, 1, 0) > 0, ready.revents & Int16(POLLIN) != 0 {
                guard read(readEnd, &bytes, bytes.count) > 0 else { return }
            }
        }
    }

    /// Suspends until SIGINT or SIGTERM arrives, through Dispatch signal sources: the fallback when no pipe
    /// could be made (a signal in the moment before the sources are registered is lost).
    static func waitWithDispatch() async {
        let queue = DispatchQueue(label: "hardtack.signals")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: signalNumber, queue: queue))
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let latch = SignalLatch(continuation)
            for source in sources {
                source.setEventHandler { latch.fire(()) }
                source.resume()
            }
        }
        for source in sources { source.cancel() }
    }
}

/// Resumes a continuation once, with whichever comes first: a signal, or (for ``Signals/Termination/stop(_:quiet:)``)
/// the stop's end. Guarded by a pthread mutex (an `NSLock`) rather than Synchronization's `Mutex`, whose hand-off
/// ThreadSanitizer cannot see on Linux.
private final class SignalLatch<Value: Sendable>: Sendable {
    private let lock = NSLock()
    // Safety: read and written only while `lock` is held.
    private nonisolated(unsafe) var continuation: CheckedContinuation<Value, Never>?

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = continuation }

    func fire(_ value: Value) {
        lock.lock()
        defer { lock.unlock() }
        continuation?.resume(returning: value)
        continuation = nil
    }
}
