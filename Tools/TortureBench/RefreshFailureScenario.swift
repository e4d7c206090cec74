import BenchSupport
import Data
import Domain
import Foundation
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 8: the app core (the `hardtack` executable, one process per command) refreshing through a
/// proxy to `hardtack serve` that kills it after the server answered (before and just after the new
/// tokens are stored), kills it before the server saw anything while other processes wait, drops every
/// connection, or answers garbage. The session must either keep working or clearly ask for sign-in,
/// and after a rotation that was stored, the superseded refresh token is never presented (the
/// server's reuse detections stay 0).
enum RefreshFailureScenario {
    static let scenario = Scenario(
        number: 8, name: "refresh",
        title: "refresh killed after the server answered (before and after storing), server down, garbage "
            + "answers: session works or asks for sign-in; reuse after a stored rotation 0",
        run: run)

    /// How a case ended for the user.
    private enum Ending: String {
        case keptWorking = "kept working"
        case askedToSignIn = "asked to sign in"
        case broken = "neither"
    }

    /// Tallies of one kind of case.
    private struct Tally {
        var cases = 0
        var endings: [Ending: Int] = [:]
        var committed = 0
        var reuseWhereForbidden = 0
        var reuseWhereExpected = 0
        var slowest = 0.0
        var problems: [String] = []
    }

    /// The server, the proxy in front of it, the store, and the commands.
    private final class World {
        let context: ScenarioContext
        let server: ServeProcess
        let proxy: FaultProxy
        let store: String
        let directory: String

        init(_ context: ScenarioContext) throws {
            self.context = context
            directory = context.directory("refresh")
            server = try ServeProcess(context, errors: directory + "/serve.err")
            proxy = try FaultProxy(target: server.port)
            store = makeDirectory(directory + "/app") + "/store.db"
        }

        var url: String { "http://127.0.0.1:\(proxy.port)" }

        func arguments(_ command: String, server: String? = nil) -> [String] {
            [command, "--store", store] + (command == "status" ? [] : ["--server", server ?? url])
        }

        /// Runs one command to its end (a refresh waiting out a dead process's claim takes up to a minute).
        func run(_ command: String, server: String? = nil) -> CommandRunner.Result {
            context.hardtack(arguments(command, server: server), timeout: 120)
        }

        /// Starts one command without waiting.
        func start(_ command: String) throws -> ChildProcess {
            try ChildProcess.spawn(
                context.hardtack, arguments(command), environment: context.sandboxEnvironment,
                stdout: .file(directory + "/\(command)-\(UUID().uuidString).out"),
                stderr: .file(directory + "/last.err"))
        }

        func signIn() -> Bool {
            let result = context.hardtack(
                ["signin", "--store", store, "--server", url, "--username", "alice", "--password-stdin"],
                input: "wonderland")
            return result.status == 0
        }

        /// The refresh token in the store now (`nil`: no session, or the store cannot be read).
        func storedRefreshToken() -> String? {
            guard let store = try? SQLiteSecureItemStore.open(at: store, keySource: .keyFile(path: store + ".key")),
                let session = try? waitFor({ () async throws(AuthenticationError) in try await SecureStoreSessionRepository(store: store).load() })
            else { return nil }
            return session.refreshToken.value.revealedString()
        }

        var reuseDetections: Int { server.stats()?["reuseDetections"] ?? -1 }
        var serverRefreshes: Int { server.stats()?["refreshes"] ?? -1 }

        /// Signed in with a fresh session, whatever the last case left.
        func freshSession() -> Bool {
            if storedRefreshToken() != nil && run("refresh").status == 0 { return true }
            return signIn()
        }

        /// How the next command a user runs ends: a refresh (the token is then presented) and, if it
        /// worked, an authorized call.
        func ending() -> (Ending, Double, String) {
            let started = Date()
            let refresh = run("refresh")
            let seconds = Date().timeIntervalSince(started)
            switch refresh.status {
            case 0:
                let me = run("me")
                return (me.status == 0 ? .keptWorking : .broken, seconds, me.err)
            case 3 where refresh.err.contains("Sign in again") || refresh.err.contains("hardtack signin"):
                let status = run("status")
                return (status.status == 3 ? .askedToSignIn : .broken, seconds, refresh.err)
            default:
                return (.broken, seconds, "refresh exited \(refresh.status.map(String.init) ?? "none"): \(refresh.err)")
            }
        }
    }

    static func run(_ context: ScenarioContext) {
        let world: World
        do {
            world = try World(context)
        } catch {
            context.fail("cannot start the server and proxy: \(error)")
            return
        }
        defer {
            world.proxy.stop()
            world.server.stop()
        }
        guard world.signIn() else {
            context.fail("cannot sign in through the proxy")
            return
        }
        let repeats = context.mode.pick(2, 10)
        killedAfterTheServerAnswered(world, repeats: repeats)
        killedBeforeTheServerSawIt(world, repeats: repeats)
        serverDown(world, repeats: repeats)
        garbage(world, repeats: repeats)
        concurrent(world, repeats: repeats)
        context.check(world.server.isAlive, "hardtack serve died")
    }

    // MARK: Cases

    /// The client killed once the server has rotated the token: before the answer reaches it (never
    /// stored: the session is lost and must ask for sign-in), or 0–1.5 ms after (stored or not).
    private static func killedAfterTheServerAnswered(_ world: World, repeats: Int) {
        let context = world.context
        var before = Tally()
        var after = Tally()
        for index in 0..<(12 * repeats) {
            let early = index % 3 == 0
            guard world.freshSession(), let original = world.storedRefreshToken() else {
                context.fail("no session to refresh")
                return
            }
            let reuse = world.reuseDetections
            let child: ChildProcess
            do {
                child = try world.start("refresh")
            } catch {
                context.fail("cannot start hardtack: \(error)")
                return
            }
            world.proxy.arm(
                early
                    ? .killBeforeReply
                    : .killAfterReply(microseconds: Int.random(in: 0...1500, using: &context.random)),
                victim: child.pid)
            let termination = child.wait(timeout: 60) ?? child.killAndReap()
            let stored = world.storedRefreshToken()
            let committed = stored != nil && stored != original
            let (ending, seconds, detail) = world.ending()
            let reused = world.reuseDetections - reuse
            var tally = early ? before : after
            tally.cases += 1
            tally.endings[ending, default: 0] += 1
            tally.slowest = max(tally.slowest, seconds)
            if committed {
                tally.committed += 1
                tally.reuseWhereForbidden += reused
                if ending != .keptWorking {
                    tally.problems.append("stored rotation, then \(ending.rawValue): \(detail)")
                }
            } else {
                tally.reuseWhereExpected += reused
                if ending == .broken { tally.problems.append("lost rotation, then: \(detail)") }
            }
            if termination != .signaled(SIGKILL) && termination != .exited(0) {
                tally.problems.append("the refresh ended \(termination.map { "\($0)" } ?? "?")")
            }
            if early { before = tally } else { after = tally }
        }
        report(context, "killed after the server answered, before the answer arrived", before)
        report(context, "killed 0–1.5 ms after the answer arrived (stored or not)", after)
    }

    /// A process killed holding the refresh claim before its request left, while two others wait to
    /// refresh: nothing was rotated, so both must carry on at once, without presenting a used token.
    private static func killedBeforeTheServerSawIt(_ world: World, repeats: Int) {
        let context = world.context
        var tally = Tally()
        for _ in 0..<(3 * repeats) {
            guard world.freshSession() else { return }
            let reuse = world.reuseDetections
            do {
                let first = try world.start("refresh")
                world.proxy.arm(.killBeforeForward, victim: first.pid)
                _ = first.wait(timeout: 60) ?? first.killAndReap()
                let started = Date()
                let waiting = try (0..<2).map { _ in try world.start("refresh") }
                let endings = waiting.map { $0.wait(timeout: 120) ?? $0.killAndReap() }
                let seconds = Date().timeIntervalSince(started)
                tally.cases += 1
                tally.slowest = max(tally.slowest, seconds)
                let worked = endings.allSatisfy { $0 == .exited(0) } && world.run("me").status == 0
                tally.endings[worked ? .keptWorking : .broken, default: 0] += 1
                if !worked {
                    tally.problems.append("the waiting refreshes ended \(endings.map { "\(String(describing: $0))" })")
                }
            } catch {
                context.fail("cannot start hardtack: \(error)")
                return
            }
            tally.committed += 1
            tally.reuseWhereForbidden += world.reuseDetections - reuse
        }
        report(context, "killed holding the claim before its request left, two processes waiting", tally)
        context.check(tally.slowest < 10, "processes waited \(Int(tally.slowest)) s for a dead process's claim")
    }

    /// Every connection dropped, or nothing listening: the session is kept and says so.
    private static func serverDown(_ world: World, repeats: Int) {
        let context = world.context
        var tally = Tally()
        for index in 0..<(2 * repeats) {
            guard world.freshSession(), let original = world.storedRefreshToken() else { return }
            let reuse = world.reuseDetections
            // The session's own server, down either way: connections reset, or nothing listening (the
            // session remembers its server, so another --server would be refused, not tried).
            let refused = index % 2 == 1
            do {
                if refused { try world.proxy.setRefusing(true) } else { world.proxy.setDown(true) }
            } catch {
                context.fail("cannot take the server down: \(error)")
                return
            }
            let result = world.run("refresh")
            world.proxy.setDown(false)
            do {
                try world.proxy.setRefusing(false)
            } catch {
                context.fail("cannot bring the server back: \(error)")
                return
            }
            tally.cases += 1
            let kept =
                result.status == 69 && result.err.contains("session is kept")
                && world.storedRefreshToken() == original && world.run("status").status == 0
            if !kept {
                tally.problems.append("server down: exit \(result.status.map(String.init) ?? "none"): \(result.err)")
            }
            let (ending, seconds, detail) = world.ending()
            tally.slowest = max(tally.slowest, seconds)
            tally.endings[kept ? ending : .broken, default: 0] += 1
            if ending != .keptWorking { tally.problems.append("once back: \(detail)") }
            tally.committed += 1
            tally.reuseWhereForbidden += world.reuseDetections - reuse
        }
        report(context, "server down (connections reset, or refused)", tally)
    }

    /// Garbage instead of the server's answer: the session is kept (exit 69 or 76) and works once the
    /// server answers again. Garbage after the server rotated the token loses the session: sign in.
    private static func garbage(_ world: World, repeats: Int) {
        let context = world.context
        var kept = Tally()
        var lost = Tally()
        let answers = garbageAnswers()
        for round in 0..<repeats {
            for (index, answer) in answers.enumerated() {
                guard world.freshSession(), let original = world.storedRefreshToken() else { return }
                let reuse = world.reuseDetections
                let afterRotation = (index + round) % 5 == 4
                world.proxy.arm(afterRotation ? .garbageAfterForward(answer.bytes) : .garbage(answer.bytes))
                let result = world.run("refresh")
                var tally = afterRotation ? lost : kept
                tally.cases += 1
                let sessionKept = [69, 76].contains(result.status ?? 0) && world.storedRefreshToken() == original
                if !sessionKept {
                    tally.problems.append(
                        "\(answer.name): exit \(result.status.map(String.init) ?? "none"): \(result.err.prefix(160))")
                }
                let (ending, seconds, detail) = world.ending()
                tally.slowest = max(tally.slowest, seconds)
                tally.endings[sessionKept ? ending : .broken, default: 0] += 1
                let reused = world.reuseDetections - reuse
                if afterRotation {
                    tally.reuseWhereExpected += reused
                    if ending == .broken { tally.problems.append("\(answer.name) after rotation, then: \(detail)") }
                } else {
                    tally.committed += 1
                    tally.reuseWhereForbidden += reused
                    if ending != .keptWorking { tally.problems.append("\(answer.name), then: \(detail)") }
                }
                if afterRotation { lost = tally } else { kept = tally }
            }
        }
        report(context, "garbage instead of the answer (\(answers.count) kinds)", kept)
        report(context, "garbage after the server rotated the token (the answer lost)", lost)
    }

    /// Four refreshes at once, healthy: each ends well, and no used token is presented.
    private static func concurrent(_ world: World, repeats: Int) {
        let context = world.context
        var tally = Tally()
        for _ in 0..<(2 * repeats) {
            guard world.freshSession() else { return }
            let reuse = world.reuseDetections
            do {
                let started = Date()
                let children = try (0..<4).map { _ in try world.start("refresh") }
                let endings = children.map { $0.wait(timeout: 120) ?? $0.killAndReap() }
                tally.slowest = max(tally.slowest, Date().timeIntervalSince(started))
                let worked = endings.allSatisfy { $0 == .exited(0) }
                tally.cases += 1
                tally.endings[worked ? .keptWorking : .broken, default: 0] += 1
                if !worked { tally.problems.append("endings \(endings.map { String(describing: $0) })") }
            } catch {
                context.fail("cannot start hardtack: \(error)")
                return
            }
            tally.committed += 1
            tally.reuseWhereForbidden += world.reuseDetections - reuse
        }
        report(context, "four refresh processes at once", tally)
    }

    // MARK: Helpers

    private static func report(_ context: ScenarioContext, _ name: String, _ tally: Tally) {
        let endings = [Ending.keptWorking, .askedToSignIn, .broken].map { "\($0.rawValue) \(tally.endings[$0] ?? 0)" }
        context.say(
            "\(name): \(tally.cases) cases → " + endings.joined(separator: ", ")
                + "; rotation stored (or none made) \(tally.committed), reuse detections there \(tally.reuseWhereForbidden)"
                + (tally.reuseWhereExpected > 0 ? ", after a lost rotation \(tally.reuseWhereExpected)" : "")
                + String(format: "; slowest next refresh %.2f s", tally.slowest))
        for problem in tally.problems.prefix(4) { context.say("  \(problem.prefix(220))") }
        context.check(
            tally.endings[.broken, default: 0] == 0,
            "\(name): \(tally.endings[.broken, default: 0]) cases neither kept working nor asked for sign-in")
        context.check(
            tally.reuseWhereForbidden == 0,
            "\(name): \(tally.reuseWhereForbidden) reuse detections after a stored rotation")
        context.check(tally.problems.isEmpty, "\(name): \(tally.problems.count) problems")
    }

    /// Answers a broken server, proxy or captive portal might give.
    private static func garbageAnswers() -> [(name: String, bytes: [UInt8])] {
        func http(_ status: String, _ type: String, _ body: String) -> [UInt8] {
            Array(
                "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                    .utf8)
        }
        let json = "application/json"
        let token = "eyJhbGciOiJIUzI1NiJ9.e30.sig"
        return [
            (
                "a captive portal's page",
                http("200 OK", "text/html", "<html><body>Please accept the terms</body></html>")
            ),
            ("an empty 200", http("200 OK", json, "")),
            ("truncated JSON", http("200 OK", json, #"{"access_token":"\#(token)","token_ty"#)),
            ("no access token", http("200 OK", json, #"{"token_type":"Bearer","expires_in":300}"#)),
            (
                "token type mac",
                http("200 OK", json, #"{"access_token":"\#(token)","token_type":"mac","expires_in":300}"#)
            ),
            (
                "negative lifetime",
                http("200 OK", json, #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":-5}"#)
            ),
            (
                "a token with spaces",
                http("200 OK", json, #"{"access_token":"a b\r\nX-Evil: 1","token_type":"Bearer"}"#)
            ),
            ("a 500 HTML page", http("500 Internal Server Error", "text/html", "<h1>oops</h1>")),
            (
                "503 temporarily unavailable",
                http("503 Service Unavailable", json, #"{"error":"temporarily_unavailable"}"#)
            ),
            ("429 too many requests", http("429 Too Many Requests", json, "{}")),
            ("400 invalid_request", http("400 Bad Request", json, #"{"error":"invalid_request"}"#)),
            ("a bare 401", http("401 Unauthorized", "text/plain", "no")),
            (
                "a 100 KiB body",
                http("200 OK", json, "{\"access_token\":\"" + String(repeating: "a", count: 100_000) + "\"}")
            ),
            ("not HTTP", Array("garbage garbage garbage\r\n\r\n".utf8)),
            (
                "a body cut short",
                Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"access_".utf8)
            ),
            ("nothing at all", []),
        ]
    }
}
