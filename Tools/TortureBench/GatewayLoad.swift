import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A steady load of API calls through the gateway instances, as browsers behind a load balancer make
/// them: per session, `perSession` threads each calling `GET /api/me` with the session cookie and
/// `X-CSRF: 1`, then pausing 100 ms. Each call goes to the next instance in turn; one refused (the
/// instance is down) or cut before its answer's head (killed while answering) goes to the next, as
/// nginx's `proxy_next_upstream error` sends an unanswered GET on. A session whose call answers 401 has
/// ended: its threads stop.
final class GatewayLoad: Sendable {
    /// How a call ended.
    enum Outcome: Equatable, Sendable {
        /// 200.
        case served
        /// 401: the session ended.
        case ended
        /// Another status (502, 503, 504 are the gateway's "not now").
        case status(Int)
        /// No instance answered within the bound.
        case unanswered
    }

    /// One call.
    struct Call: Sendable {
        /// The session's index.
        let session: Int
        /// Seconds from the load's start to the call's start and end.
        let started: Double
        let ended: Double
        /// How it ended.
        let outcome: Outcome
        /// How many times it went on to another instance (refused or cut).
        let moved: Int
        /// The start of the answer's body when it was not 200, to say why.
        var detail = ""
    }

    private let balancer: RoundRobin
    private let host: String
    private let cookies: [String]
    private let perSession: Int
    private let bound: Double
    private let origin = Date()
    private let calls = Mutex<[Call]>([])
    private let endedSessions = Mutex<Set<Int>>([])
    private let stopping = Atomic<Bool>(false)
    private let running = DispatchGroup()

    /// A load over `cookies` (one session cookie header each) through `balancer`; `bound` seconds is the
    /// most any one call may take before it counts as unanswered.
    init(balancer: RoundRobin, host: String, cookies: [String], perSession: Int, bound: Double) {
        self.balancer = balancer
        self.host = host
        self.cookies = cookies
        self.perSession = perSession
        self.bound = bound
    }

    /// Seconds since the load was made.
    var now: Double { Date().timeIntervalSince(origin) }

    /// Starts every thread.
    func start() {
        for session in cookies.indices {
            for _ in 0..<perSession {
                running.enter()
                Thread {
                    defer { self.running.leave() }
                    while !self.stopping.load(ordering: .relaxed)
                        && !self.endedSessions.withLock({ $0.contains(session) })
                    {
                        let call = self.call(session)
                        self.calls.withLock { $0.append(call) }
                        if call.outcome == .ended { self.endedSessions.withLock { _ = $0.insert(session) } }
                        usleep(100_000)
                    }
                }.start()
            }
        }
    }

    /// Stops every thread and waits for their calls in flight.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        running.wait()
    }

    /// Every call so far.
    var recorded: [Call] { calls.withLock { $0 } }

    /// The sessions that have ended.
    var ended: Set<Int> { endedSessions.withLock { $0 } }

    /// One call for `session`, moved on from instance to instance until one answers or the bound passes.
    func call(_ session: Int) -> Call {
        let started = now
        let request = BrowserRequest(
            target: "/api/me", host: host, fields: [("Cookie", cookies[session]), ("X-CSRF", "1")])
        var moved = 0
        while now - started < bound {
            switch request.send(to: balancer.next(), timeout: max(1, bound - (now - started))) {
            case .answered(let answer):
                let outcome: Outcome =
                    switch answer.status {
                    case 200: .served
                    case 401: .ended
                    default: .status(answer.status)
                    }
                var call = Call(session: session, started: started, ended: now, outcome: outcome, moved: moved)
                if answer.status != 200 { call.detail = String(decoding: answer.body.prefix(160), as: UTF8.self) }
                return call
            case .refused, .cut:
                moved += 1
                // Every instance refused in a row: wait a little, as a balancer with none up.
                if moved % balancer.ports.count == 0 { usleep(50_000) }
            }
        }
        return Call(session: session, started: started, ended: now, outcome: .unanswered, moved: moved)
    }
}
