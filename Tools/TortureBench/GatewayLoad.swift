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
/// ended: its user signs in again, as a browser's would, and the calls go on with the new session.
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
        /// The user's index (whose session it was).
        let user: Int
        /// Seconds from the load's start to the call's start.
        let started: Double
        /// Seconds from the load's start to the call's end.
        let ended: Double
        /// How it ended.
        let outcome: Outcome
        /// Each instance it went on from (refused or cut), and when.
        let detours: [Detour]
        /// The answer's error code (`"error":"…"` in its JSON body) when it was not 200.
        var code = ""
    }

    /// An instance that refused a call, or cut it before its answer's head.
    struct Detour: Sendable {
        /// The instance's port.
        let port: UInt16
        /// Seconds from the load's start.
        let at: Double
    }

    /// A session that ended (401), and when.
    struct End: Sendable {
        /// The user whose session it was.
        let user: Int
        /// Seconds from the load's start.
        let at: Double
        /// The 401's error code.
        let code: String
    }

    private let balancer: RoundRobin
    private let host: String
    /// Each user's current session cookie header, `nil` while it signs in again.
    private let cookies: Mutex<[String?]>
    private let signIn: @Sendable () throws -> String
    private let perSession: Int
    private let bound: Double
    private let origin = Date()
    private let calls = Mutex<[Call]>([])
    private let endings = Mutex<[End]>([])
    private let signInFailures = Mutex<[String]>([])
    private let stopping = Atomic<Bool>(false)
    private let running = DispatchGroup()

    /// A load over `cookies` (one session cookie header per user) through `balancer`; `signIn` makes a new
    /// session's cookie header when one ends; `bound` seconds is the most any one call may take before it
    /// counts as unanswered.
    init(
        balancer: RoundRobin, host: String, cookies: [String], signIn: @escaping @Sendable () throws -> String,
        perSession: Int, bound: Double
    ) {
        self.balancer = balancer
        self.host = host
        self.cookies = Mutex(cookies)
        self.signIn = signIn
        self.perSession = perSession
        self.bound = bound
    }

    /// Seconds since the load was made.
    var now: Double { Date().timeIntervalSince(origin) }

    /// `date` in seconds since the load was made.
    func moment(of date: Date) -> Double { date.timeIntervalSince(origin) }

    /// The `error` member of a JSON answer's body, or its first 80 bytes when it has none.
    private static func errorCode(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(400), as: UTF8.self)
        guard let key = text.firstRange(of: "\"error\":\""), let end = text[key.upperBound...].firstIndex(of: "\"")
        else { return String(text.prefix(80)) }
        return String(text[key.upperBound..<end])
    }

    /// Starts every thread.
    func start() {
        for user in 0..<cookies.withLock({ $0.count }) {
            for _ in 0..<perSession {
                running.enter()
                Thread {
                    defer { self.running.leave() }
                    while !self.stopping.load(ordering: .relaxed) {
                        defer { usleep(100_000) }
                        guard let cookie = self.cookies.withLock({ $0[user] }) else { continue }
                        let call = self.call(user, cookie: cookie)
                        self.calls.withLock { $0.append(call) }
                        if call.outcome == .ended { self.renew(user, ended: cookie, by: call) }
                    }
                }.start()
            }
        }
    }

    /// Signs `user` in again after the session of `cookie` ended, unless another thread already does.
    private func renew(_ user: Int, ended cookie: String, by call: Call) {
        let first = cookies.withLock { list -> Bool in
            guard list[user] == cookie else { return false }
            list[user] = nil
            return true
        }
        guard first else { return }
        endings.withLock { $0.append(End(user: user, at: call.ended, code: call.code)) }
        // Tried again for 30 s: the store or the issuer may be in a planned outage.
        let deadline = now + 30
        while true {
            do {
                let renewed = try signIn()
                cookies.withLock { $0[user] = renewed }
                return
            } catch {
                guard now < deadline, !stopping.load(ordering: .relaxed) else {
                    signInFailures.withLock { $0.append("user \(user): \(error)") }
                    return
                }
                usleep(500_000)
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

    /// Every session that ended, in order.
    var ended: [End] { endings.withLock { $0 } }

    /// Sign-ins again that failed, each said.
    var failedSignIns: [String] { signInFailures.withLock { $0 } }

    /// One call with `user`'s current session; `nil` when it has none (its sign-in again failed).
    func callNow(_ user: Int) -> Call? {
        cookies.withLock { $0[user] }.map { call(user, cookie: $0) }
    }

    /// One call for `user` with `cookie`, moved on from instance to instance until one answers or the bound
    /// passes.
    private func call(_ user: Int, cookie: String) -> Call {
        let started = now
        let request = BrowserRequest(target: "/api/me", host: host, fields: [("Cookie", cookie), ("X-CSRF", "1")])
        var detours: [Detour] = []
        while now - started < bound {
            let port = balancer.next()
            switch request.send(to: port, timeout: max(1, bound - (now - started))) {
            case .answered(let answer):
                let outcome: Outcome =
                    switch answer.status {
                    case 200: .served
                    case 401: .ended
                    default: .status(answer.status)
                    }
                var call = Call(user: user, started: started, ended: now, outcome: outcome, detours: detours)
                if answer.status != 200 { call.code = Self.errorCode(answer.body) }
                return call
            case .refused, .cut:
                detours.append(Detour(port: port, at: now))
                // Every instance refused in a row: wait a little, as a balancer with none up.
                if detours.count % balancer.ports.count == 0 { usleep(50_000) }
            }
        }
        return Call(user: user, started: started, ended: now, outcome: .unanswered, detours: detours)
    }
}
