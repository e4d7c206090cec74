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
/// (or after the server rotated the token), or drop every connection (a server that is down). For
/// many clients at once (the gateway's instances) it can also slow or fail every refresh for a while,
/// kill whichever client sent the next refresh, and tell whether a client had a refresh under way.
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
        /// Forward it, get the server's answer, and kill whichever candidate sent it (see
        /// ``setCandidates(_:)``) before it reads the answer.
        case killSenderBeforeReply
    }

    private struct State {
        var armed = Action.pass
        var victim: pid_t = 0
        var down = false
        var stopped = false
        var refreshes = 0
        var listener: Int32 = -1
        var candidates: [pid_t] = []
        var refreshDelay: useconds_t = 0
        var refreshFailure: [UInt8]?
        var records: [RefreshRecord] = []
        var killedSenders: [(pid: pid_t, at: Date)] = []
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

    /// The processes a refresh may come from, so that each refresh is told by its sender.
    func setCandidates(_ pids: [pid_t]) {
        state.withLock { $0.candidates = pids }
    }

    /// Holds every refresh this long before forwarding it (0: not at all), as a slow token endpoint.
    func setRefreshDelay(_ seconds: Double) {
        state.withLock { $0.refreshDelay = useconds_t(max(0, seconds) * 1_000_000) }
    }

    /// Answers every refresh with these bytes without asking the server (`nil`: forward again), as a
    /// failing token endpoint.
    func setRefreshFailure(_ reply: [UInt8]?) {
        state.withLock { $0.refreshFailure = reply }
    }

    /// The senders that ``Action/killSenderBeforeReply`` killed, and when, in order.
    var killedSenders: [(pid: pid_t, at: Date)] { state.withLock { $0.killedSenders } }

    /// Every refresh seen, in order of arrival.
    var refreshRecords: [RefreshRecord] { state.withLock { $0.records } }

    /// How long before `moment` the last refresh `pid` sent was answered, if it sent one.
    func sinceRefresh(from pid: pid_t, at moment: Date) -> Double? {
        state.withLock { state in
            state.records.compactMap { $0.sender == pid ? $0.ended : nil }.filter { $0 <= moment }.max()
                .map { moment.timeIntervalSince($0) }
        }
    }

    /// How many refreshes a kill of `pid` at `moment` may have struck: those it had under way then, or
    /// had answered less than `margin` seconds before (it might not have stored their tokens yet); and
    /// those whose sender the proxy could not tell that were under way then or arrived up to `margin`
    /// after (a process killed after sending leaves its request in the kernel for the proxy to accept,
    /// and is gone by then, which is why its sender cannot be told). Ask a little after `moment`.
    func refreshesStruck(by pid: pid_t, at moment: Date, margin: Double) -> Int {
        state.withLock { state in
            state.records.filter { record in
                let answeredBefore = record.ended.map { moment.timeIntervalSince($0) < margin } ?? true
                if record.sender == pid { return record.started <= moment && answeredBefore }
                return record.sender == 0 && record.started.timeIntervalSince(moment) <= margin && answeredBefore
            }.count
        }
    }

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
        let arrived = Date()
        guard let request = Self.readRequest(client) else { return }
        let text = String(decoding: request.prefix(4096), as: UTF8.self)
        let isRefresh =
            (text.hasPrefix("POST /oauth/token ") && text.contains("grant_type=refresh_token"))
            || text.hasPrefix("POST /auth/refresh ")
        var action = Action.pass
        var victim: pid_t = 0
        var record = -1
        var delay: useconds_t = 0
        var failure: [UInt8]?
        if isRefresh {
            let candidates = state.withLock { $0.candidates }
            let sender = SocketOwner.peer(of: client, among: candidates) ?? 0
            (action, victim, record, delay, failure) = state.withLock { state in
                state.records.append(RefreshRecord(sender: sender, started: arrived))
                var taken = (state.armed, state.victim)
                if case .killSenderBeforeReply = state.armed {
                    // Kept armed until a refresh comes from a known sender.
                    guard sender > 0 else {
                        return (.pass, 0, state.records.count - 1, state.refreshDelay, state.refreshFailure)
                    }
                    taken.1 = sender
                }
                state.armed = .pass
                return (taken.0, taken.1, state.records.count - 1, state.refreshDelay, state.refreshFailure)
            }
        }
        defer {
            if record >= 0 { state.withLock { $0.records[record].ended = Date() } }
        }
        func forward() -> [UInt8] {
            if isRefresh { state.withLock { $0.refreshes += 1 } }
            // Asked to close once answered (the proxy reads until then), and never half-closed:
            // libmicrohttpd may drop a request whose client shut its side while the answer was on its way.
            return LoopbackClient.exchange(port: target, Self.closing(request), finish: false, timeout: 20).bytes
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
        if delay > 0 { usleep(delay) }
        if let failure {
            send(failure)
            return
        }
        switch action {
        case .pass:
            send(forward())
        case .killBeforeForward:
            Self.kill(victim)
        case .killBeforeReply:
            _ = forward()
            Self.kill(victim)
        case .killSenderBeforeReply:
            _ = forward()
            state.withLock { $0.killedSenders.append((victim, Date())) }
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
}
