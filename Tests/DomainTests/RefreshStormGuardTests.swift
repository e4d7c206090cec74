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
}
