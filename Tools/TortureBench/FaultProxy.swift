import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP forwarder on 127.0.0.1 between the app core and `hardtack serve` that makes refreshes fail
/// on purpose: it can kill the client once the server has answered (before or just after passing the
/// answer on), kill it before the request reaches the server, answer garbage instead of the server
/// (or after the server rotated the token), or drop every connection (a server that is down).
final class FaultProxy: Sendable {
    /// What happens to the next refresh request.
    enum Action: Sendable {
        /// Forward it and its answer.
        case pass
        /// Kill the client without forwarding: the server never sees the request.
        case killBeforeForward
        /// Forward it, get the server's answer, kill the client, and send nothing.
        case killBeforeReply
        /// Forward it and pass the answer on, then kill the client after `microseconds`.
        case killAfterReply(microseconds: Int)
        /// Answer these bytes without asking the server.
        case garbage([UInt8])
        /// Forward it (the server rotates the token), then answer these bytes instead.
        case garbageAfterForward([UInt8])
    }

    private struct State {
        var armed = Action.pass
        var victim: pid_t = 0
        var down = false
        var stopped = false
        var refreshes = 0
        var listener: Int32 = -1
    }

    /// The proxy's port.
    let port: UInt16
    private let target: UInt16
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts forwarding to 127.0.0.1:`target`.
    init(target: UInt16) throws {
        self.target = target
        let (fd, port) = try Self.listen(on: 0)
        self.port = port
        state.withLock { $0.listener = fd }
        Thread { self.acceptLoop(fd) }.start()
    }

    /// A listening socket on 127.0.0.1:`port` (0: any free port), and its port.
    private static func listen(on port: UInt16) throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChildProcess.SpawnError(description: "socket: \(errnoText())") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw ChildProcess.SpawnError(description: "cannot listen: \(errnoText())")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Whether the port refuses connections (nothing listening, as when the server is not running), and
    /// then listens again on the same port.
    func setRefusing(_ refusing: Bool) throws {
        if refusing {
            let fd = state.withLock { state -> Int32 in
                defer { state.listener = -1 }
                return state.listener
            }
            guard fd >= 0 else { return }
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
            _ = finished.wait(timeout: .now() + 5)
        } else {
            guard state.withLock({ $0.listener }) < 0 else { return }
            let (fd, _) = try Self.listen(on: port)
            state.withLock { $0.listener = fd }
            Thread { self.acceptLoop(fd) }.start()
        }
    }

    /// The action for the next refresh request, and the process to kill.
    func arm(_ action: Action, victim: pid_t = 0) {
        state.withLock {
            $0.armed = action
            $0.victim = victim
        }
    }

    /// Sets the process to kill once it is known (after it was started).
    func setVictim(_ victim: pid_t) {
        state.withLock { $0.victim = victim }
    }

    /// Whether every connection is dropped at once, as by a server that is down.
    func setDown(_ down: Bool) {
        state.withLock { $0.down = down }
    }

    /// How many refresh requests reached the server through the proxy.
    var refreshesForwarded: Int { state.withLock { $0.refreshes } }

    /// Stops accepting.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        let fd = state.withLock { state -> Int32 in
            defer { state.listener = -1 }
            return state.listener
        }
        guard fd >= 0 else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        _ = finished.wait(timeout: .now() + 5)
    }

    private func acceptLoop(_ listener: Int32) {
        defer { finished.signal() }
        while !state.withLock({ $0.stopped }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            if state.withLock({ $0.down }) {
                // Reset at once: the client sees a connection that failed, as with a dead server.
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(client)
                continue
            }
            Thread { self.serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let request = Self.readRequest(client) else { return }
        let text = String(decoding: request.prefix(4096), as: UTF8.self)
        let isRefresh =
            (text.hasPrefix("POST /oauth/token ") && text.contains("grant_type=refresh_token"))
            || text.hasPrefix("POST /auth/refresh ")
        var action = Action.pass
        var victim: pid_t = 0
        if isRefresh {
            (action, victim) = state.withLock { state in
                defer { state.armed = .pass }
                return (state.armed, state.victim)
            }
        }
        func forward() -> [UInt8] {
            if isRefresh { state.withLock { $0.refreshes += 1 } }
            return LoopbackClient.exchange(port: target, request, timeout: 20).bytes
        }
        func send(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes {
                    Glibc.send(client, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                if sent <= 0 { return }
                offset += sent
            }
        }
        switch action {
        case .pass:
            send(forward())
        case .killBeforeForward:
            Self.kill(victim)
        case .killBeforeReply:
            _ = forward()
            Self.kill(victim)
        case .killAfterReply(let microseconds):
            send(forward())
            shutdown(client, Int32(SHUT_WR))
            usleep(useconds_t(microseconds))
            Self.kill(victim)
        case .garbage(let bytes):
            send(bytes)
        case .garbageAfterForward(let bytes):
            _ = forward()
            send(bytes)
        }
    }

    private static func kill(_ victim: pid_t) {
        if victim > 0 { _ = Glibc.kill(victim, SIGKILL) }
    }

    /// One HTTP request: its head and the body its Content-Length announces.
    private static func readRequest(_ fd: Int32) -> [UInt8]? {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            if let end = firstIndex(of: [13, 10, 13, 10], in: buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
                var length = 0
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                if buffer.count >= end + 4 + length { return buffer }
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
            if buffer.count > 1 << 20 { return nil }
        }
    }
}
