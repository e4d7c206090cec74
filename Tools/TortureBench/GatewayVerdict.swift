import Foundation

/// The gateway scenario's calls held against its faults: what it prints and what it checks.
struct GatewayVerdict {
    /// Every call of the load.
    let calls: [GatewayLoad.Call]
    /// What struck, when.
    let faults: GatewayFaultLog
    /// How many sessions the load ran.
    let sessions: Int
    /// The sessions that ended (a call answered 401).
    let ended: Set<Int>
    /// Refreshes the issuer answered during the load.
    var refreshes = 0
    /// Refresh tokens presented again after their rotation (the issuer's reuse detections).
    var reuse = 0
    /// Sessions that did not end yet no longer answer, each said.
    var lost: [String] = []

    /// Prints the figures and records every failed check.
    func report(_ context: ScenarioContext) {
        let served = calls.filter { $0.outcome == .served }.count
        let moved = calls.filter { $0.moved > 0 }.count
        let unanswered = calls.filter { $0.outcome == .unanswered }
        let failed = calls.filter { call in
            if case .status = call.outcome { return true }
            return false
        }
        let unplanned = failed.filter {
            faults.outage(at: $0.started) == nil && faults.outage(at: $0.ended) == nil
        }
        let durations = calls.map { $0.ended - $0.started }.sorted()
        let explained = faults.explainedEnds
        context.say(
            "calls: \(calls.count) over \(sessions) sessions, \(served) served, \(failed.count) refused for a while "
                + "(502/503/504), \(unanswered.count) unanswered, \(moved) went on to another instance "
                + "(refused or cut by a kill); p50 \(ms(percentile(durations, 0.5))), "
                + "p99 \(ms(percentile(durations, 0.99))), longest \(ms(durations.last ?? 0))")
        context.say(
            "faults: \(faults.kills.count) instances killed (\(faults.kills.filter(\.aimed).count) by the proxy "
                + "mid-refresh, \(faults.kills.filter { !$0.aimed && $0.struckRefresh }.count) of the random ones "
                + "during a refresh), \(faults.outages.count) planned outages")
        context.say(
            "refreshes at the issuer: \(refreshes); generations presented again (reuse): \(reuse); sessions "
                + "ended: \(ended.count); faults that can explain one each: \(explained)")
        for outage in faults.outages {
            let inside = failed.filter { outage.from <= $0.ended && $0.ended <= outage.to }
            let last = inside.map(\.ended).max().map { " (the last \(seconds($0 - outage.from)) after it began)" }
            context.say("\(outage.what): \(inside.count) calls refused\(last ?? "")")
        }
        for kill in faults.kills where kill.aimed {
            // Takeover: the first call answered after the kill that waited on it, or the ended session's 401.
            let next = calls.filter { $0.started < kill.at && $0.ended > kill.at }.map(\.ended).max()
            let end = calls.filter { $0.outcome == .ended && $0.ended > kill.at }.map(\.ended).min()
            context.say(
                "kill mid-refresh at \(seconds(kill.at)): calls in flight answered within "
                    + "\(next.map { seconds($0 - kill.at) } ?? "-"); a session's 401 "
                    + "\(end.map { seconds($0 - kill.at) + " after" } ?? "never")")
        }
        context.check(served >= sessions * 10, "only \(served) calls served: the load did not run")
        context.check(refreshes > sessions, "only \(refreshes) refreshes at the issuer: tokens did not expire")
        context.check(unanswered.isEmpty, "\(unanswered.count) calls unanswered within \(Int(GatewayScenario.bound)) s")
        context.check(
            unplanned.isEmpty,
            "\(unplanned.count) calls failed outside a planned outage: "
                + unplanned.prefix(3).map { "\($0.outcome) at \(seconds($0.ended)): \($0.detail)" }.joined(separator: ", "))
        context.check(
            ended.count <= explained, "\(ended.count) sessions ended, more than the \(explained) faults that explain one")
        context.check(reuse <= explained, "\(reuse) refresh tokens reused, more than the \(explained) faults that explain one")
        context.check(lost.isEmpty, "sessions lost: " + lost.joined(separator: "; "))
    }

    private func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    private func ms(_ value: Double) -> String { String(format: "%.0f ms", value * 1000) }

    private func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
}
