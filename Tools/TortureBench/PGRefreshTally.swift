import Foundation

/// What scenario 16 counted over its rounds, and the figures it prints.
struct PGRefreshTally {
    var rounds = 0
    var cleanRounds = 0
    var calls = 0
    /// Calls by how they ended (`exit 0`, `killed by the bench`, …).
    var endings: [String: Int] = [:]
    /// Successful rotations the auth server counted.
    var serverRefreshes = 0
    /// Refreshes the processes that ended by themselves say they made.
    var reportedRefreshes = 0
    /// Reuse the auth server detected: in rounds without faults, explained by a kill -9 of a process of
    /// that account (it may have died after its request reached the server), in rounds with a cut or a
    /// restart beyond the kills (a live process's rotation must never be lost to either), and beyond
    /// what the round's kills can explain.
    var reuseClean = 0
    var reuseAfterKill = 0
    var reuseAfterCut = 0
    var reuseUnexplained = 0
    /// Generations refreshed by clean rounds, and the refreshes the server made for them.
    var cleanGenerations = 0
    var cleanRefreshes = 0
    /// Accounts found signed out after a round, and those whose end the round's faults do not explain.
    var signedOut = 0
    var signedOutUnexplained = 0
    /// The messages those accounts ended with (one per distinct message).
    var signOutMessages: Set<String> = []
    /// Processes still running at the bound, and verifying calls that did not answer in time.
    var stuck = 0
    var kills = 0
    var cuts = 0
    var restarts = 0
    var restartSeconds: [Double] = []
    /// Seconds from a kill to the next answer for the killed process's account.
    var takeovers: [Double] = []
    /// Seconds from the winner's end to a waiting process's end, in clean rounds.
    var wakeUps: [Double] = []
    /// The slowest call, in seconds.
    var slowest = 0.0
    var problems: [String] = []

    /// `p50 / p99 / max` of `values` in milliseconds.
    static func spread(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "none measured" }
        let sorted = values.sorted()
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q + 0.5))] }
        return String(
            format: "p50 %.0f ms, p99 %.0f ms, max %.0f ms (n=%d)", at(0.5) * 1000, at(0.99) * 1000,
            sorted.last! * 1000, sorted.count)
    }

    /// Prints the figures and checks the invariants.
    func report(_ context: ScenarioContext, accounts: Int, perAccount: Int, seconds: Double) {
        context.say(
            "\(rounds) rounds (\(cleanRounds) without faults) of \(accounts) accounts × \(perAccount) processes, "
                + "\(calls) calls in \(String(format: "%.0f s", seconds)); faults: \(kills) kill -9, \(cuts) cuts of "
                + "every connection, \(restarts) server restarts (\(Self.spread(restartSeconds)) each)")
        context.say(
            "call endings: " + endings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + String(format: "; slowest call %.2f s", slowest))
        let perGeneration = cleanGenerations == 0 ? 0 : Double(cleanRefreshes) / Double(cleanGenerations)
        context.say(
            "refreshes per generation in rounds without faults: \(cleanRefreshes) refreshes for \(cleanGenerations) "
                + "expired generations = \(String(format: "%.2f", perGeneration)); server refreshes in all "
                + "\(serverRefreshes), by processes that lived \(reportedRefreshes)")
        context.say(
            "reuse detected by the auth server: \(reuseClean + reuseAfterKill + reuseAfterCut + reuseUnexplained) — "
                + "in rounds without faults \(reuseClean), explained by a kill -9 \(reuseAfterKill), after a cut or "
                + "restart beyond the kills \(reuseAfterCut), otherwise unexplained \(reuseUnexplained)")
        context.say(
            "sessions signed out \(signedOut) (each after a reuse the server saw), unexplained \(signedOutUnexplained); "
                + "stuck \(stuck)")
        for message in signOutMessages.sorted().prefix(3) { context.say("  signed out with: \(message.prefix(200))") }
        context.say("takeover after a kill (the next answer for that account): \(Self.spread(takeovers))")
        context.say("waiter wake-up (a waiting process's end after the winner's end): \(Self.spread(wakeUps))")
        for problem in problems.prefix(10) { context.say("  \(problem.prefix(240))") }
        context.check(cleanGenerations > 0, "no round without faults refreshed anything")
        context.check(
            cleanRefreshes == cleanGenerations,
            "\(cleanRefreshes) refreshes for \(cleanGenerations) generations in rounds without faults (must be 1 each)")
        context.check(reuseClean == 0, "\(reuseClean) reuse detections in rounds without faults")
        context.check(reuseAfterCut == 0, "\(reuseAfterCut) reuse detections a cut or a restart caused")
        context.check(reuseUnexplained == 0, "\(reuseUnexplained) reuse detections beyond the round's kills")
        context.check(signedOutUnexplained == 0, "\(signedOutUnexplained) sessions signed out without an explaining reuse")
        context.check(stuck == 0, "\(stuck) stuck calls")
        context.check(problems.isEmpty, "\(problems.count) problems")
    }
}
