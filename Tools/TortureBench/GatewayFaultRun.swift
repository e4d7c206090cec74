import BenchSupport
import Domain
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The gateway scenario's faults, one round after another while the load runs, each written down in
/// ``log`` with the moment it struck on the load's clock.
struct GatewayFaultRun {
    let context: ScenarioContext
    let cluster: GatewayCluster
    let proxy: FaultProxy
    let server: PostgresServer
    let load: GatewayLoad
    /// What struck, when.
    private(set) var log = GatewayFaultLog()

    /// The reply of a failing token endpoint.
    private static let unavailable = Array(
        ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nContent-Length: 21\r\nConnection: close\r\n\r\n"
            + "<h1>Unavailable</h1>\n").utf8)

    /// Faults on `cluster`, through `proxy` and on `server`, timed on `load`'s clock.
    init(context: ScenarioContext, cluster: GatewayCluster, proxy: FaultProxy, server: PostgresServer, load: GatewayLoad) {
        self.context = context
        self.cluster = cluster
        self.proxy = proxy
        self.server = server
        self.load = load
    }

    /// Waits `seconds` while the load runs.
    func pause(_ seconds: Double) {
        usleep(useconds_t(seconds * 1_000_000))
    }

    /// One round: a steady spell, instances killed at random, one killed mid-refresh, the token endpoint
    /// slowed and then failing, PostgreSQL restarted. False when the round could not go on.
    mutating func round(_ index: Int) -> Bool {
        pause(Double.random(in: 2...4, using: &context.random))
        for _ in 0..<context.mode.pick(2, 3) {
            pause(Double.random(in: 1.5...3, using: &context.random))
            guard killAtRandom() else { return false }
        }
        guard killMidRefresh() else { return false }
        pause(3)
        // Slow: every refresh held 1.5 s before the issuer sees it; calls wait, none fails.
        proxy.setRefreshDelay(1.5)
        pause(7)
        proxy.setRefreshDelay(0)
        // Failing: every refresh answered 503 for 6 s (longer than a token lives, so every session needs one
        // within it); calls that need one fail (503), sessions stay.
        var from = load.now
        proxy.setRefreshFailure(Self.unavailable)
        pause(6)
        proxy.setRefreshFailure(nil)
        // Grace: a session whose refresh failed late in it may wait out its longest pause after it.
        log.outages.append(
            .init(
                what: "token endpoint failing", from: from,
                to: load.now + AuthenticationPolicy().unansweredRefreshPauseLimit + 1, codes: ["issuer_unavailable"]))
        pause(3)
        // PostgreSQL stopped (-m immediate) for a second and started again: no session may end for it (a
        // refresh whose tokens cannot be stored keeps trying for 30 s).
        from = load.now
        guard server.crash() else {
            context.fail("round \(index): cannot stop PostgreSQL")
            return false
        }
        pause(1)
        guard server.restart() else {
            context.fail("round \(index): cannot start PostgreSQL again")
            return false
        }
        log.outages.append(.init(what: "PostgreSQL restarted", from: from, to: load.now + 5, codes: ["store_unavailable"]))
        pause(5)
        return true
    }

    /// Kills a random instance with SIGKILL, and starts it again a second later.
    private mutating func killAtRandom() -> Bool {
        let index = Int.random(in: 0..<cluster.ports.count, using: &context.random)
        guard let pid = cluster.pid(index) else { return true }
        let moment = Date()
        cluster.kill(index)
        guard let restarted = startAgain(index) else { return false }
        // Asked a second later: a request it sent just before it died reaches the proxy after the kill.
        let struck = proxy.refreshesStruck(by: pid, at: moment, margin: 1)
        log.kills.append(
            .init(
                at: load.moment(of: moment), restarted: restarted, instance: index, aimed: false, struck: struck,
                sinceRefresh: proxy.sinceRefresh(from: pid, at: moment)))
        return true
    }

    /// Has the proxy kill whichever instance sends the next refresh once the issuer answered it, and starts
    /// that instance again a second later.
    private mutating func killMidRefresh() -> Bool {
        let before = proxy.killedSenders.count
        proxy.arm(.killSenderBeforeReply)
        let deadline = Date().addingTimeInterval(15)
        while proxy.killedSenders.count == before && Date() < deadline { usleep(20_000) }
        let killed = proxy.killedSenders
        guard killed.count > before, let index = cluster.index(of: killed[before].pid) else {
            proxy.arm(.pass)
            context.fail("no refresh reached the issuer in 15 s to kill its sender")
            return false
        }
        cluster.kill(index)
        guard let restarted = startAgain(index) else { return false }
        // The refresh it was killed for, and any other it had under way then (two sessions falling due at once).
        let struck = proxy.refreshesStruck(by: killed[before].pid, at: killed[before].at, margin: 1)
        log.kills.append(
            .init(
                at: load.moment(of: killed[before].at), restarted: restarted, instance: index, aimed: true,
                struck: max(1, struck)))
        return true
    }

    /// Starts instance `index` again after a second; when it listens again, or `nil` when it cannot start.
    private func startAgain(_ index: Int) -> Double? {
        pause(1)
        do {
            try cluster.restart(index)
        } catch {
            context.fail("cannot start gateway \(index) again: \(error)")
            return nil
        }
        proxy.setCandidates(cluster.pids)
        return load.now
    }
}
