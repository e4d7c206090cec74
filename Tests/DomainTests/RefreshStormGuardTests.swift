import Domain
import Foundation
import Testing

/// The refresh-storm guard's counting, including a policy with no limit for all accounts together (a
/// gateway's many users), which must neither trip nor overflow.
@Suite struct RefreshStormGuardTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func oneAccountIsHeldToItsLimitOthersAreNot() throws {
        let guardian = RefreshStormGuard()
        var policy = AuthenticationPolicy()
        policy.maxRefreshesPerWindow = 3
        for index in 0..<3 { try guardian.admit(account: "a", at: start + Double(index), policy: policy) }
        #expect(throws: AuthenticationError.refreshStorm(refreshes: 3, windowSeconds: 60)) {
            try guardian.admit(account: "a", at: start + 3, policy: policy)
        }
        try guardian.admit(account: "b", at: start + 3, policy: policy)
        // Once the window has passed, the account may refresh again.
        try guardian.admit(account: "a", at: start + 61, policy: policy)
    }

    @Test(arguments: [Int.max, 10_000_000])
    func manyAccountsUnderAnUnboundedTotalNeitherTripNorOverflow(_ total: Int) throws {
        let guardian = RefreshStormGuard()
        var policy = AuthenticationPolicy()
        policy.maxRefreshesPerWindowAllAccounts = total
        for index in 0..<2_000 { try guardian.admit(account: "user-\(index)", at: start, policy: policy) }
    }

    @Test func anUnansweredRefreshCountsForNothingAndPausesOnlyItsAccount() throws {
        let guardian = RefreshStormGuard()
        var policy = AuthenticationPolicy()
        policy.maxRefreshesPerWindow = 2
        // A try every 0.25 s (exact in binary) for 40 s, each unanswered: the server is asked after each
        // pause (0.5 s, doubling to 2 s), and 21 silences within a minute are no storm.
        var asked: [Double] = []
        for step in 0...160 {
            let instant = start + Double(step) * 0.25
            guard (try? guardian.checkPause(account: "a", at: instant)) != nil else { continue }
            try guardian.admit(account: "a", at: instant, policy: policy)
            asked.append(instant.timeIntervalSince(start))
            guardian.unanswered(account: "a", at: instant, policy: policy)
        }
        #expect(asked == [0, 0.5, 1.5] + stride(from: 3.5, through: 39.5, by: 2).map { $0 })
        let now = start + 40
        #expect(throws: AuthenticationError.self) { try guardian.checkPause(account: "a", at: now) }
        // Another account is not held back; an answer ends the pause, and answered refreshes count again.
        try guardian.checkPause(account: "b", at: now)
        guardian.answered(account: "a")
        try guardian.checkPause(account: "a", at: now)
        try guardian.admit(account: "a", at: now, policy: policy)
        try guardian.admit(account: "a", at: now + 1, policy: policy)
        #expect(throws: AuthenticationError.refreshStorm(refreshes: 2, windowSeconds: 60)) {
            try guardian.admit(account: "a", at: now + 2, policy: policy)
        }
        // A silence long after the last pause ended starts again from the first pause, not the longest.
        guardian.unanswered(account: "c", at: now, policy: policy)
        for step in 1...3 { guardian.unanswered(account: "c", at: now + Double(step), policy: policy) }
        #expect(throws: AuthenticationError.self) { try guardian.checkPause(account: "c", at: now + 4.5) }
        guardian.unanswered(account: "c", at: now + 20, policy: policy)
        try guardian.checkPause(account: "c", at: now + 20.5)
    }

    @Test func aClockSteppedBackEndsThePauseInsteadOfStretchingIt() throws {
        let guardian = RefreshStormGuard()
        guardian.unanswered(account: "a", at: start, policy: AuthenticationPolicy())
        #expect(throws: AuthenticationError.self) { try guardian.checkPause(account: "a", at: start + 0.25) }
        // An hour back: the pause would have 3,600.5 s left; it is over.
        try guardian.checkPause(account: "a", at: start - 3600)
    }
}
