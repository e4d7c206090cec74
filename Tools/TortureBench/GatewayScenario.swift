import BenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 17: three `hardtack gateway` instances on one PostgreSQL store, signed in at `hardtack serve`
/// (which counts refreshes and reuse) through a fault proxy that is the issuer's address, under a steady
/// load of several sessions' API calls spread over the instances in turn (the bench is the load balancer:
/// nothing sticky, an unanswered call goes to the next). Meanwhile: instances killed with SIGKILL at
/// random and started again, one killed by the proxy as it sends a refresh (the issuer rotated, the
/// instance never stored the successor), the token endpoint slowed, then failing, then PostgreSQL stopped
/// with `-m immediate` and started again. Every call is held against the faults.
enum GatewayScenario {
    /// The scenario, for the catalog.
    static let scenario = Scenario(
        number: 17, name: "gateway",
        title: "Gateway: three instances on PostgreSQL under steady load, killed and restarted, the token endpoint "
            + "slowed and failing, PostgreSQL restarted: reuse and ended sessions only from a kill mid-refresh, "
            + "failed calls outside planned outages 0, sessions lost 0",
        run: run)

    /// Seconds any one call may take before it counts as unanswered.
    static let bound = 60.0
    /// The session cookie's name.
    static let cookieName = "__Host-hardtack"

    /// Runs the scenario.
    static func run(_ context: ScenarioContext) {
        guard let server = PostgresServer.start(context) else { return }
        defer { server.stop() }
        let directory = context.directory("gateway")
        let secretFile = directory + "/client-secret"
        let storeFile = directory + "/store-uri"
        let keyFile = directory + "/store.key"
        guard writeFile(secretFile, Array((context.random.hex(24) + "\n").utf8)),
            writeFile(storeFile, Array((server.uri + "\n").utf8)), writeFile(keyFile, context.random.bytes(32))
        else {
            context.fail("cannot write the gateway's files: \(errnoText())")
            return
        }
        let serve: ServeProcess
        let proxy: FaultProxy
        do {
            serve = try ServeProcess(
                context, ["--access-token-lifetime", "5", "--confidential-client", "hardtack-gateway=" + secretFile],
                errors: directory + "/serve.err")
            proxy = try FaultProxy(target: serve.port)
        } catch {
            context.fail("cannot start the issuer: \(error)")
            return
        }
        defer {
            proxy.stop()
            serve.stop()
        }
        // The origin the browser sees; the bench stands in for its load balancer.
        let host = "127.0.0.1:8443"
        let arguments = [
            "--issuer", "http://127.0.0.1:\(proxy.port)", "--client-id", "hardtack-gateway", "--client-secret-file",
            secretFile, "--public-origin", "http://" + host, "--route", "/api/=http://127.0.0.1:\(serve.port)/api/",
            "--store-file", storeFile, "--key-file", keyFile,
            // Revocation copies written on every sign-in and rotation, and swept every 5 s, under the same faults.
            "--revoke-ended-sessions", "--sweep-interval", "5",
        ]
        let cluster: GatewayCluster
        do {
            cluster = try GatewayCluster(
                count: 3, hardtack: context.hardtack, arguments: arguments, environment: context.sandboxEnvironment,
                errors: directory + "/gateway")
        } catch {
            context.fail("cannot start the gateways: \(error)")
            return
        }
        defer { cluster.stop() }
        proxy.setCandidates(cluster.pids)

        let sessions = context.mode.pick(4, 8)
        var cookies: [String] = []
        let signIn = GatewaySignIn(balancer: cluster.balancer, host: host, issuerPort: proxy.port, cookieName: cookieName)
        for index in 0..<sessions {
            do {
                cookies.append("\(cookieName)=\(try signIn.run())")
            } catch {
                context.fail("cannot sign session \(index) in: \(error)")
                return
            }
        }
        guard let before = serve.stats() else {
            context.fail("hardtack serve does not answer")
            return
        }
        let load = GatewayLoad(
            balancer: cluster.balancer, host: host, cookies: cookies, signIn: { "\(cookieName)=\(try signIn.run())" },
            perSession: context.mode.pick(2, 3), bound: bound)
        load.start()
        var run = GatewayFaultRun(context: context, cluster: cluster, proxy: proxy, server: server, load: load)
        for round in 0..<context.mode.pick(1, 4) {
            guard run.round(round) else { break }
        }
        run.pause(4)
        load.stop()
        guard let after = serve.stats() else {
            context.fail("hardtack serve does not answer")
            return
        }
        var verdict = GatewayVerdict(
            calls: load.recorded, faults: run.log, ports: cluster.ports, users: sessions, ended: load.ended)
        verdict.refreshes = (after["refreshes"] ?? 0) - (before["refreshes"] ?? 0)
        verdict.reuse = (after["reuseDetections"] ?? 0) - (before["reuseDetections"] ?? 0)
        verdict.lost = load.failedSignIns.map { "cannot sign in again: \($0)" }
        // Sessions lost: every user's session answers one more call.
        for user in 0..<sessions {
            guard let call = load.callNow(user) else { continue }
            if call.outcome != .served { verdict.lost.append("user \(user): \(call.outcome) \(call.code) after the run") }
        }
        context.check(serve.isAlive, "hardtack serve died")
        // Every session has its revocation copy, and the ended ones' are revoked by the sweeps.
        GatewayCopies(context: context, storeFile: storeFile, keyFile: keyFile).check(within: 15)
        if let final = serve.stats() {
            // The issuer counts a revocation that ended a live family; a session ended by its reuse detection
            // (a kill mid-refresh) had its family revoked already, so its copy's revocation counts nothing.
            context.say(
                "live token families revoked at the issuer: \((final["revocations"] ?? 0) - (before["revocations"] ?? 0))")
        }
        // For an end no kill explains: the refreshes the proxy saw in the 4 s before it, to say what happened.
        for end in verdict.report(context) {
            let seen = proxy.refreshRecords.filter { (end.at - 4...end.at).contains(load.moment(of: $0.started)) }
            context.say(
                "before user \(end.user)'s end at \(String(format: "%.2f", end.at)) s: "
                    + seen.map { record in
                        "pid \(record.sender) \(String(format: "%.2f", load.moment(of: record.started)))–"
                            + (record.ended.map { String(format: "%.2f", load.moment(of: $0)) } ?? "open")
                    }.joined(separator: ", "))
        }
    }
}
