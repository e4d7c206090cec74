import Domain
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension PGRefreshTally {
    /// Counts one round: how its calls ended, the server's refreshes and reuse (attributed to the
    /// round's faults), the accounts signed out after it, takeover times and wake-ups.
    mutating func add(
        _ outcome: PGRefreshRound.Outcome, faults: PGRefreshRound.Faults, round: Int, accounts: Int,
        serverRefreshes refreshes: Int, reuse: Int, signedOut: [Int], verifySeconds: [Int: Double], verifyRefreshes: Int
    ) {
        rounds += 1
        calls += outcome.callers.count
        serverRefreshes += refreshes
        let clean = faults.none
        let killed = outcome.callers.filter { $0.killedAt != nil && $0.child.wait(timeout: 0) == .signaled(SIGKILL) }
        kills += killed.count
        cuts += outcome.cut ? 1 : 0
        if outcome.restarted {
            restarts += 1
            restartSeconds.append(outcome.restartSeconds)
        }
        if outcome.restartFailed { problems.append("round \(round): the server did not stop or start again") }
        if faults.cut != nil && !outcome.cut { problems.append("round \(round): the connections could not be cut") }
        stuck += outcome.stuck.count
        for caller in outcome.stuck {
            problems.append(
                "round \(round): a process of user\(caller.account) was still running after \(Int(PGRefreshScenario.bound)) s")
        }
        var reported = 0
        var refreshedAccounts = Set<Int>()
        for caller in outcome.callers where !outcome.stuck.contains(where: { $0 === caller }) {
            if killed.contains(where: { $0 === caller }) {
                endings["killed by the bench", default: 0] += 1
                continue
            }
            slowest = max(slowest, (caller.ended ?? Date()).timeIntervalSince(caller.started))
            guard let status = caller.status else {
                endings["ended by a signal", default: 0] += 1
                problems.append("round \(round): a process of user\(caller.account) ended by a signal")
                continue
            }
            endings["exit \(status)", default: 0] += 1
            switch status {
            case 0:
                let count = caller.refreshes ?? 0
                reported += count
                if count > 0 { refreshedAccounts.insert(caller.account) }
            case 3, 69, 75:
                // Signed out (after a reuse the server saw), the server or the store unreachable
                // meanwhile: the session is judged by the call after the round. Never without a fault.
                if clean { problems.append("round \(round): user\(caller.account) exit \(status): \(caller.errorText)") }
                if status == 3 { signOutMessages.insert(caller.errorText) }
            case 1 where !clean && caller.errorText.contains(RefreshSession.rotationLost):
                // The store stayed away longer than the completion's retries: the rotated token was lost
                // and said so (its next call is judged as a sign-out after the round). Never without a fault.
                signOutMessages.insert(caller.errorText)
            default:
                problems.append("round \(round): user\(caller.account) exit \(status): \(caller.errorText)")
            }
        }
        // The calls after the round refresh too when a long round let the tokens expire again.
        reported += verifyRefreshes
        reportedRefreshes += reported
        // Reuse and sign-outs, each explained by a fault of the round or counted as unexplained.
        if clean {
            reuseClean += reuse
            cleanRounds += 1
            cleanGenerations += reported
            cleanRefreshes += refreshes
            if refreshedAccounts.count < accounts {
                problems.append("round \(round): only \(refreshedAccounts.count) of \(accounts) accounts refreshed")
            }
        } else {
            let byKill = min(reuse, Set(killed.map(\.account)).count)
            let byCut = min(reuse - byKill, outcome.cut || outcome.restarted ? accounts : 0)
            reuseAfterKill += byKill
            reuseAfterCut += byCut
            reuseUnexplained += reuse - byKill - byCut
        }
        self.signedOut += signedOut.count
        signedOutUnexplained += max(0, signedOut.count - reuse)
        // Takeover: from a kill to the next answer for that account, in the round or after it.
        for victim in killed {
            guard let at = victim.killedAt else { continue }
            let next = outcome.callers.filter {
                $0.account == victim.account && $0.killedAt == nil && ($0.status == 0 || $0.status == 3)
                    && ($0.ended ?? .distantPast) > at
            }.compactMap(\.ended).min()
            if let next {
                takeovers.append(next.timeIntervalSince(at))
            } else if let seconds = verifySeconds[victim.account] {
                takeovers.append(seconds)
            }
        }
        // Wake-up: in a round without faults, a waiting process of an account ends after its winner.
        guard clean else { return }
        for account in 0..<accounts {
            let served = outcome.callers.filter { $0.account == account && $0.status == 0 }
            let winners = served.filter { ($0.refreshes ?? 0) > 0 }
            guard winners.count == 1, let winnerEnd = winners[0].ended else { continue }
            for waiter in served where waiter !== winners[0] {
                wakeUps.append(max(0, (waiter.ended ?? winnerEnd).timeIntervalSince(winnerEnd)))
            }
        }
    }
}
