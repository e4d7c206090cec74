import BenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 16: many instances refreshing many accounts on one PostgreSQL store, as the app does
/// (`hardtack me --account A` processes against `hardtack serve`, which counts refreshes and reuse),
/// round after round once every access token has expired, while processes are killed with SIGKILL,
/// every connection is cut (`pg_terminate_backend`), and the server is stopped with `-m immediate`
/// and started again. Each round is then checked from outside: one `hardtack me` per account must
/// answer (served, or signed out saying why) within the bound.
enum PGRefreshScenario {
    /// The scenario, for the catalog.
    static let scenario = Scenario(
        number: 16, name: "pg-refresh",
        title: "PostgreSQL: processes × accounts refreshing after expiry under kill -9, cut connections and a server "
            + "restart: refreshes per generation 1, reuse only after a fault (each explained), stuck 0",
        run: run)

    /// Seconds any one call may take before it counts as stuck (the 45 s lease, and more).
    static let bound = 60.0

    /// Runs the scenario.
    static func run(_ context: ScenarioContext) {
        guard let server = PostgresServer.start(context) else { return }
        defer { server.stop() }
        let directory = context.directory("pg-refresh")
        let serve: ServeProcess
        do {
            serve = try ServeProcess(context, ["--access-token-lifetime", "2"], errors: directory + "/serve.err")
        } catch {
            context.fail("cannot start hardtack serve: \(error)")
            return
        }
        defer { serve.stop() }
        let environment = ["PG_KEY": hex(context.random.bytes(32))]
        let store = ["--store", server.uri, "--key-env", "PG_KEY"]
        let accounts = context.mode.pick(4, 8)
        let perAccount = context.mode.pick(3, 4)
        let rounds = context.mode.pick(12, 80)
        let restartRounds = Set(context.mode.pick([6], [10, 25, 40, 55, 70]))
        func me(_ account: Int) -> [String] { ["me", "--server", serve.url, "--account", "user\(account)"] + store }
        func signIn(_ account: Int) -> Bool {
            let result = context.hardtack(
                ["signin", "--server", serve.url, "--account", "user\(account)", "--username", "alice", "--password-stdin"]
                    + store, input: "wonderland\n", environment: environment)
            if result.status != 0 { context.say("sign-in of user\(account): \(result.err.suffix(200))") }
            return result.status == 0
        }
        for account in 0..<accounts where !signIn(account) {
            context.fail("cannot sign user\(account) in")
            return
        }
        var tally = PGRefreshTally()
        var lastCall = Date()
        let started = Date()
        let callerEnvironment = context.sandboxEnvironment.merging(environment) { $1 }
        for index in 0..<rounds {
            // Tokens live 2 s, a tenth of which (0.2 s) is kept in hand: 2 s after the last call, all
            // have expired whatever the last call's refresh took.
            let pause = 2.0 - Date().timeIntervalSince(lastCall)
            if pause > 0 { usleep(useconds_t(pause * 1_000_000)) }
            let faults = plan(index, restart: restartRounds.contains(index), random: &context.random)
            guard let before = serve.stats() else {
                context.fail("hardtack serve does not answer")
                return
            }
            let round = PGRefreshRound(accounts: accounts, perAccount: perAccount, faults: faults, bound: bound)
            let outcome = round.run(
                start: { account in
                    try PGRefreshCaller(
                        account: account, hardtack: context.hardtack, arguments: me(account),
                        environment: callerEnvironment, directory: directory)
                }, server: server, random: &context.random)
            // Every account answers one more call, with nothing striking.
            var signedOut: [Int] = []
            var verifySeconds: [Int: Double] = [:]
            var verifyRefreshes = 0
            for account in 0..<accounts {
                let result = context.hardtack(me(account), environment: environment, timeout: bound)
                verifySeconds[account] = result.seconds
                tally.slowest = max(tally.slowest, result.seconds)
                switch result.status {
                case 0:
                    // Its token may have expired again meanwhile (a long round): its refresh counts too.
                    let line = result.out.split(separator: "\n").first { $0.hasPrefix("refreshes by this process: ") }
                    verifyRefreshes += line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
                case 3:
                    signedOut.append(account)
                    tally.signOutMessages.insert(result.err.trimmingCharacters(in: .whitespacesAndNewlines))
                case nil where result.termination == nil:
                    tally.stuck += 1
                    tally.problems.append("round \(index): user\(account) did not answer in \(Int(bound)) s")
                default:
                    tally.problems.append(
                        "round \(index): user\(account) after the round: \(result.termination.map { "\($0)" } ?? "?"): "
                            + result.err.suffix(200))
                }
            }
            guard let after = serve.stats() else {
                context.fail("hardtack serve does not answer")
                return
            }
            tally.add(
                outcome, faults: faults, round: index, accounts: accounts,
                serverRefreshes: (after["refreshes"] ?? 0) - (before["refreshes"] ?? 0),
                reuse: (after["reuseDetections"] ?? 0) - (before["reuseDetections"] ?? 0),
                signedOut: signedOut, verifySeconds: verifySeconds, verifyRefreshes: verifyRefreshes)
            for account in signedOut where !signIn(account) {
                context.fail("cannot sign user\(account) in again")
                return
            }
            lastCall = Date()
        }
        context.check(serve.isAlive, "hardtack serve died")
        tally.report(context, accounts: accounts, perAccount: perAccount, seconds: Date().timeIntervalSince(started))
    }

    /// What strikes in round `index`: the first round is left alone; a restart round restarts the
    /// server while the processes refresh; otherwise kills, a cut, both, or nothing, at random.
    private static func plan(_ index: Int, restart: Bool, random: inout SeededGenerator) -> PGRefreshRound.Faults {
        var faults = PGRefreshRound.Faults()
        guard index > 0 else { return faults }
        if restart {
            faults.restart = Double.random(in: 0.05...0.3, using: &random)
            return faults
        }
        let roll = Double.random(in: 0..<1, using: &random)
        if roll < 0.45 {
            faults.kills = (0..<Int.random(in: 1...2, using: &random)).map { _ in
                Double.random(in: 0.03...0.4, using: &random)
            }
        }
        if roll >= 0.3 && roll < 0.6 { faults.cut = Double.random(in: 0.03...0.4, using: &random) }
        return faults
    }
}
