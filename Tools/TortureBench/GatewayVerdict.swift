import Foundation

/// The gateway scenario's calls held against its faults: what it prints and what it checks.
struct GatewayVerdict {
    /// Every call of the load.
    let calls: [GatewayLoad.Call]
    /// What struck, when.
    let faults: GatewayFaultLog
    /// The instances' ports, in order.
    let ports: [UInt16]
    /// How many users the load ran (one session at a time each).
    let users: Int
    /// The sessions that ended (a call answered 401; the user signed in again).
    let ended: [GatewayLoad.End]
    /// Refreshes the issuer answered during the load.
    var refreshes = 0
    /// Refresh tokens presented again after their rotation (the issuer's reuse detections).
    var reuse = 0
    /// Users whose session neither ended nor answers after the run, each said.
    var lost: [String] = []

    /// The longest a session may take to end (its next call answering 401) after the kill that explains it.
    static let takeoverBound = 3.0

    /// Prints the figures and records every failed check; returns the ended sessions no kill explains.
    @discardableResult
    func report(_ context: ScenarioContext) -> [GatewayLoad.End] {
        let served = calls.filter { $0.outcome == .served }.count
        let unanswered = calls.filter { $0.outcome == .unanswered }
        var failed: [(call: GatewayLoad.Call, status: Int)] = []
        for call in calls { if case .status(let status) = call.outcome { failed.append((call, status)) } }
        let unplanned = failed.filter { faults.outage(explaining: $0.status, code: $0.call.code, at: $0.call.ended) == nil }
        let detours = calls.flatMap(\.detours)
        let strayDetours = detours.filter { !faults.wasDown($0.port, of: ports, at: $0.at) }
        let durations = calls.map { $0.ended - $0.started }.sorted()
        let seconds = calls.map(\.ended).max() ?? 0
        context.say(
            "calls: \(calls.count) from \(users) users over \(format(seconds)), \(served) served, \(failed.count) "
                + "refused for a while (502/503/504), \(unanswered.count) unanswered; \(detours.count) times an "
                + "instance refused or cut a call, which went to the next; p50 \(ms(percentile(durations, 0.5))), "
                + "p99 \(ms(percentile(durations, 0.99))), longest \(ms(durations.last ?? 0))")
        let struck = faults.kills.map(\.struck).reduce(0, +)
        context.say(
            "faults: \(faults.kills.count) instances killed (\(faults.kills.filter(\.aimed).count) by the proxy "
                + "mid-refresh, \(faults.kills.filter { !$0.aimed && $0.struck > 0 }.count) of the random ones during "
                + "a refresh; \(struck) refreshes struck in all), \(faults.outages.count) planned outages")
        // Refreshes per generation: a rotating issuer counts a generation presented twice as reuse.
        context.say(
            "refreshes per generation: \(refreshes) refreshes at the issuer, \(reuse) generations presented again "
                + "(each must follow a kill that struck a refresh: \(struck)); sessions ended \(ended.count), "
                + "each signed in again")
        for outage in faults.outages {
            let inside = failed.filter { outage.from <= $0.call.ended && $0.call.ended <= outage.to }
            let last = inside.map(\.call.ended).max().map { ", the last \(format($0 - outage.from)) after it began" }
            context.say("\(outage.what): \(inside.count) calls refused\(last ?? "")")
        }
        let (takeovers, unexplained) = matchedEnds()
        if !takeovers.isEmpty {
            context.say(
                "takeover (kill mid-refresh → that session's next answer, 401): "
                    + takeovers.sorted().map { format($0) }.joined(separator: ", "))
        }
        context.check(served >= users * 10, "only \(served) calls served: the load did not run")
        // Tokens live 5 s and are refreshed in their last tenth: more than one refresh per user every 3.5 s
        // would be refreshing more than each generation needs.
        let most = Int(Double(users) * seconds / 3.5) + ended.count
        context.check(
            refreshes > users && refreshes <= most,
            "\(refreshes) refreshes at the issuer: expected more than \(users) and at most \(most)")
        context.check(unanswered.isEmpty, "\(unanswered.count) calls unanswered within \(Int(GatewayScenario.bound)) s")
        context.check(
            unplanned.isEmpty,
            "\(unplanned.count) calls failed outside a planned outage: "
                + unplanned.prefix(3).map { "\($0.status) \($0.call.code) at \(format($0.call.ended))" }
                .joined(separator: ", "))
        context.check(
            strayDetours.isEmpty,
            "\(strayDetours.count) calls refused or cut by an instance that was up: "
                + strayDetours.prefix(3).map { "port \($0.port) at \(format($0.at))" }.joined(separator: ", "))
        context.check(
            unexplained.isEmpty,
            "\(unexplained.count) sessions ended with no kill that struck a refresh in the \(Int(Self.takeoverBound)) s "
                + "before: " + unexplained.map { "user \($0.user) at \(format($0.at)), \($0.code) (\(nearestKill(before: $0.at)))" }
                .joined(separator: ", "))
        context.check(reuse <= struck, "\(reuse) refresh tokens reused, more than the \(struck) refreshes kills struck")
        context.check(lost.isEmpty, "sessions lost: " + lost.joined(separator: "; "))
        return unexplained
    }

    /// Each ended session matched to the latest kill before it (within ``takeoverBound``) that struck a
    /// refresh not yet matched: the takeover times, and the ends no kill explains.
    private func matchedEnds() -> (takeovers: [Double], unexplained: [GatewayLoad.End]) {
        // One entry per refresh a kill struck: each explains one end.
        var unused = faults.kills.flatMap { Array(repeating: $0.at, count: $0.struck) }.sorted()
        var takeovers: [Double] = []
        var unexplained: [GatewayLoad.End] = []
        for end in ended.sorted(by: { $0.at < $1.at }) {
            if let index = unused.lastIndex(where: { $0 <= end.at && end.at - $0 <= Self.takeoverBound }) {
                takeovers.append(end.at - unused[index])
                unused.remove(at: index)
            } else {
                unexplained.append(end)
            }
        }
        return (takeovers, unexplained)
    }

    /// The last kill before `moment`, said for a failure message.
    private func nearestKill(before moment: Double) -> String {
        guard let kill = faults.kills.last(where: { $0.at <= moment }) else { return "no kill before it" }
        let refresh = kill.sinceRefresh.map { ", its last refresh answered \(format($0)) before" } ?? ""
        return "the last kill \(format(moment - kill.at)) before, instance \(kill.instance)\(refresh)"
    }

    private func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    private func ms(_ value: Double) -> String { String(format: "%.0f ms", value * 1000) }

    private func format(_ value: Double) -> String { String(format: "%.1f s", value) }
}
