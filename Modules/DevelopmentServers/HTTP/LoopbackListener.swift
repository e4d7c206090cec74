import Locking
import Data
import Dispatch
import Foundation

/// The loopback server's engine: one thread accepting, one thread per connection (at most
/// `maxConnections`), each connection answered once and closed. Kept apart from
/// ``LoopbackHTTPServer`` so that the threads, which hold the engine, do not keep the public object
/// alive: dropping the server still stops it.
final class LoopbackListener: Sendable {
    /// What ``stop()`` needs to see and change atomically.
    private struct State {
        var stopped = false
        /// Open connection descriptors; a descriptor leaves the set, under the lock, before it is
        /// closed, so ``stop()`` never shuts down a number the system has handed out again.
        var connections: Set<Int32> = []
    }

    /// The bound port.
    let port: UInt16
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let handler: LoopbackHTTPServer.Handler
    private let timeout: Double
    private let maxConnections: Int
    private let reader: HTTPRequestReader
    private let state = Locked(State())
    private let acceptLoopEnded = DispatchSemaphore(value: 0)
    private let connectionsDone = DispatchGroup()

    /// Binds and listens; call ``start()`` to accept.
    init(
        port: UInt16, timeout: Double, maxConnections: Int, reader: HTTPRequestReader,
        handler: @escaping LoopbackHTTPServer.Handler
    ) throws(LoopbackHTTPServerError) {
        let (listener, boundPort) = try POSIXSocket.listenOnLoopback(port: port)
        let wake: (read: Int32, write: Int32)
        do {
            wake = try POSIXSocket.makePipe()
        } catch {
            POSIXSocket.close(listener)
            throw error
        }
        self.listener = listener
        self.port = boundPort
        self.wakeRead = wake.read
        self.wakeWrite = wake.write
        self.timeout = timeout
        self.maxConnections = maxConnections
        self.reader = reader
        self.handler = handler
    }

    /// Starts the accept thread.
    func start() {
        Thread { self.acceptLoop() }.start()
    }

    /// Stops accepting, wakes connections still waiting for a request, and closes the listening
    /// socket, so the port is free when it returns. With `drain`, it also waits (at most the read
    /// timeout plus a second) for connections already answering; without, they finish on their own
    /// threads. Later calls do nothing.
    ///
    /// Never drain from a task on the cooperative pool: the connections' handlers need that pool to
    /// finish, so blocking it there can stall them until the timeout.
    func stop(drain: Bool) {
        let first = state.withLock { state in
            guard !state.stopped else { return false }
            state.stopped = true
            // SHUT_RD ends a blocked read at once but still lets a response in progress go out.
            for fd in state.connections { POSIXSocket.shutdown(fd, POSIXSocket.shutRead) }
            return true
        }
        guard first else { return }
        POSIXSocket.sendAll(wakeWrite, [1], isSocket: false)
        acceptLoopEnded.wait()
        POSIXSocket.close(listener)
        POSIXSocket.close(wakeRead)
        POSIXSocket.close(wakeWrite)
        if drain { _ = connectionsDone.wait(timeout: .now() + timeout + 1) }
    }

    private func acceptLoop() {
        defer { acceptLoopEnded.signal() }
        while let ready = POSIXSocket.waitForConnection(listener, orWake: wakeRead), !ready.wake {
            guard ready.accept else { continue }
            let fd = POSIXSocket.accept(listener)
            // Failures here (a client that gave up, EINTR, a full descriptor table) concern one
            // connection, not the server: keep listening.
            if fd >= 0 { admit(fd) }
        }
    }

    private func admit(_ fd: Int32) {
        let admitted: Bool? = state.withLock { state in
            if state.stopped { return nil }
            guard state.connections.count < maxConnections else { return false }
            state.connections.insert(fd)
            return true
        }
        switch admitted {
        case true?:
            connectionsDone.enter()
            Thread { self.serve(fd) }.start()
        case false?:
            // Over the limit: a quick 503 from this thread rather than an unbounded thread.
            POSIXSocket.setTimeouts(fd, seconds: 1)
            POSIXSocket.sendAll(fd, HTTPResponseEncoder.encode(HTTPResponse(status: 503)))
            POSIXSocket.shutdown(fd, POSIXSocket.shutWrite)
            POSIXSocket.close(fd)
        case nil:
            POSIXSocket.close(fd)
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            state.withLock { state in
                state.connections.remove(fd)
                POSIXSocket.close(fd)
            }
            connectionsDone.leave()
        }
        POSIXSocket.setTimeouts(fd, seconds: timeout)  // The reader narrows the receive side to its deadline.
        switch reader.read(from: fd) {
        case .closed:
            return
        case .rejected(let rejection):
            POSIXSocket.sendAll(fd, HTTPResponseEncoder.encode(rejection: rejection))
        case .request(let request):
            let response = respond(to: request)
            POSIXSocket.sendAll(fd, HTTPResponseEncoder.encode(response, includeBody: request.method != "HEAD"))
        }
        drain(fd)
    }

    /// Where handlers run: off the cooperative pool, which other work in the process may be holding.
    private static let handlerExecutor = DispatchTaskExecutor(label: "hardtack.loopback.handlers")

    /// Runs the handler on its own executor and waits for its answer.
    private func respond(to request: HTTPRequest) -> HTTPResponse {
        let result = HandlerResult()
        let handler = self.handler
        Task(executorPreference: Self.handlerExecutor) { result.deliver(await handler(request)) }
        return result.wait()
    }

    /// Half-closes and reads what the client still sends (bounded, briefly) before the close: closing
    /// with unread bytes makes the kernel send a reset, which can destroy the response in flight.
    private func drain(_ fd: Int32) {
        POSIXSocket.shutdown(fd, POSIXSocket.shutWrite)
        POSIXSocket.setTimeouts(fd, seconds: 0.2)
        var chunk = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while total < 64 * 1024 {
            let count = POSIXSocket.receive(fd, into: &chunk)
            if count <= 0 { return }
            total += count
        }
    }
}
