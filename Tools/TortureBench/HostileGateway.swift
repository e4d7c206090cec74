import BenchSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 9's hostile HTTP at `hardtack gateway`: one gateway on a SQLite store, signed in at `hardtack
/// serve`, forwarding `/api/` to a ``RecordingUpstream``, gets the requests of ``GatewayRequestFuzz``. What
/// it must hold: no crash, hang or 500; an intact call with the session answered by the upstream, once; one
/// without the session or `X-CSRF` answered 401 or 403 and never forwarded; every head the upstream got
/// well framed, with one bearer and none of the browser's cookies, credentials or hop-by-hop fields; the
/// session still working after; and no cookie or token in the gateway's log.
enum HostileGateway {
    /// The session cookie's name.
    private static let cookieName = "__Host-hardtack"
    /// The origin the browser sees.
    private static let host = "127.0.0.1:8443"

    /// Runs the gateway's part of the scenario, reporting through `context`.
    static func run(_ context: ScenarioContext) {
        let directory = context.directory("gateway-fuzz")
        let secretFile = directory + "/client-secret"
        let keyFile = directory + "/store.key"
        guard writeFile(secretFile, Array((context.random.hex(24) + "\n").utf8)),
            writeFile(keyFile, context.random.bytes(32))
        else {
            context.fail("cannot write the gateway's files: \(errnoText())")
            return
        }
        let upstream: RecordingUpstream
        do {
            upstream = try RecordingUpstream()
        } catch {
            context.fail("cannot start the upstream: \(error)")
            return
        }
        defer { upstream.stop() }
        let serve: ServeProcess
        do {
            serve = try ServeProcess(
                context,
                ["--access-token-lifetime", "3600", "--confidential-client", "hardtack-gateway=" + secretFile],
                errors: directory + "/serve.err")
        } catch {
            context.fail("cannot start the issuer: \(error)")
            return
        }
        defer { serve.stop() }
        let logs = directory + "/gateway"
        let gateway: GatewayCluster
        do {
            gateway = try GatewayCluster(
                count: 1, hardtack: context.hardtack,
                arguments: [
                    "--issuer", serve.url, "--client-id", "hardtack-gateway", "--client-secret-file", secretFile,
                    "--public-origin", "http://" + host, "--route", "/api/=http://127.0.0.1:\(upstream.port)/v1/",
                    "--store", directory + "/store/gateway.db", "--key-file", keyFile,
                ],
                environment: context.sandboxEnvironment, errors: logs)
        } catch {
            context.fail("cannot start the gateway: \(error)")
            return
        }
        defer { gateway.stop() }
        let port = gateway.ports[0]
        let cookie: String
        do {
            let signIn = GatewaySignIn(
                balancer: gateway.balancer, host: host, issuerPort: serve.port, cookieName: cookieName)
            cookie = "\(cookieName)=\(try signIn.run())"
        } catch {
            context.fail("cannot sign in through the gateway: \(error)")
            return
        }

        let count = context.mode.pick(3000, 30000)
        let tally = Mutex(GatewayFuzzTally(count: count))
        let seed = context.seed ^ 0x6761_7465_7761_7921
        let started = Date()
        runSeededInputs(count: count, threads: 16, seed: seed) { index, random in
            let (request, chunks, expectation) = GatewayRequestFuzz.generate(
                &random, index: index, cookie: cookie, host: host)
            // A request cut short, or with more behind it, is sent and the client's side closed: the gateway must
            // close the connection soon (within a second or two), answered or not, not at its idle timeout.
            guard GatewayRequestFuzz.isWhole(request) else {
                let reply = LoopbackClient.exchange(port: port, request, chunks: chunks, finish: true, timeout: 5)
                if reply.timedOut { writeFile(directory + "/request-\(index)", request) }
                tally.withLock { $0.recordNotWhole(index, reply: reply) }
                return
            }
            // The client half-closes after its request, but for an upstream's broken answer (which asked for the
            // connection's close instead).
            var halfCloses = true
            if case .hostile = expectation { halfCloses = false }
            let reply = LoopbackClient.exchange(port: port, request, chunks: chunks, finish: halfCloses, timeout: 12)
            // The exchange behind a hang or a server error, kept in the scratch directory.
            let brokenAnswer = GatewayFuzzTally.asksForBrokenAnswer(request)
            if reply.timedOut || reply.status.map({ $0 >= 500 && $0 != 501 && !($0 == 502 && brokenAnswer) }) == true {
                writeFile(directory + "/request-\(index)", request + Array("\n=====\n".utf8) + reply.bytes)
            }
            tally.withLock { $0.record(index, request: request, expectation: expectation, reply: reply) }
        }
        let seconds = Date().timeIntervalSince(started)
        var outcome = tally.withLock { $0 }
        outcome.match(upstream.requests, host: "127.0.0.1:\(upstream.port)", cookie: cookie)
        // The requests behind each finding, made again from their seeds, kept in the scratch directory.
        for index in outcome.flagged.prefix(20) {
            var random = SeededGenerator.generator(seed: seed, index: index)
            let (request, _, _) = GatewayRequestFuzz.generate(&random, index: index, cookie: cookie, host: host)
            writeFile(directory + "/flagged-\(index)", request)
        }

        // The session still works, and the gateway still answers.
        let after = BrowserRequest(target: "/api/after", host: host, fields: [("Cookie", cookie), ("X-CSRF", "1")])
            .send(to: port, timeout: 10)
        var served = false
        if case .answered(let answer) = after { served = answer.status == 200 && answer.field("X-Upstream") == "1" }
        var healthy = false
        if case .answered(let answer) = BrowserRequest(target: "/healthz", host: host).send(to: port, timeout: 10) {
            healthy = answer.status == 200
        }
        let leaks = leaksInLogs(directory: directory, cookie: cookie, bearers: outcome.bearers)

        let shown = outcome.results.statuses.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", ")
        context.say(
            "hostile HTTP at hardtack gateway: \(count) generated requests, 16 at a time, in "
                + String(format: "%.0f s", seconds) + " (\(outcome.notWhole) cut short or with more behind them, "
                + "then the client's close) → hangs \(outcome.results.hangs.count), "
                + "held open after the client's close \(outcome.heldOpen.count), "
                + "malformed answers \(outcome.results.malformed.count), calls not served as they must be "
                + "\(outcome.wrong.count), heads sent upstream at fault \(outcome.upstreamFaults.count) of "
                + "\(outcome.upstreamCount); the session works after: \(served), healthy: \(healthy)")
        context.say("  answers: \(shown)")
        for line
            in (outcome.results.hangs + outcome.heldOpen + outcome.results.malformed + outcome.results.unanswered
            + outcome.wrong + outcome.upstreamFaults + leaks).prefix(60)
        {
            context.say("  \(line)")
        }
        context.check(served && healthy, "the gateway stopped serving the session or answering /healthz")
        context.check(outcome.results.hangs.isEmpty, "\(outcome.results.hangs.count) requests to the gateway hung")
        context.check(
            outcome.heldOpen.isEmpty, "\(outcome.heldOpen.count) connections held open after their client's close")
        context.check(outcome.results.malformed.isEmpty, "\(outcome.results.malformed.count) malformed answers")
        context.check(outcome.results.unanswered.isEmpty, "\(outcome.results.unanswered.count) calls unanswered")
        context.check(outcome.wrong.isEmpty, "\(outcome.wrong.count) calls not served or refused as they must be")
        context.check(outcome.upstreamFaults.isEmpty, "\(outcome.upstreamFaults.count) heads sent upstream at fault")
        context.check(outcome.bearers.count == 1, "\(outcome.bearers.count) different bearers sent upstream")
        context.check(leaks.isEmpty, "the gateway's log holds a cookie or a token: \(leaks.prefix(2))")
    }

    /// Where the gateway's log (every file of it) holds the session cookie's value, a bearer it sent, or a
    /// credential a request carried (`evil-…`).
    private static func leaksInLogs(directory: String, cookie: String, bearers: Set<String>) -> [String] {
        let secrets = [String(cookie.dropFirst(cookieName.count + 1)), "evil-"] + Array(bearers)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found: [String] = []
        for file in files where file.hasPrefix("gateway") {
            let text = String(decoding: readFile(directory + "/" + file), as: UTF8.self)
            for secret in secrets where !secret.isEmpty && text.contains(secret) {
                found.append("\(file) holds \(secret.hasPrefix("evil") ? "a request's credential" : "a secret")")
            }
        }
        return found
    }
}
