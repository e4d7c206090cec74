import Domain
import Foundation
import TestSupport
import Testing

@Suite struct PerformAuthorizedCallTests {
    /// A fake endpoint that accepts only the access tokens it is told to, counting calls.
    final class Endpoint: Sendable {
        private let state = Locked((accepted: Set<String>(), calls: [String]()))
        init(accepting tokens: Set<String>) { state.withLock { $0.accepted = tokens } }
        var calls: [String] { state.withLock { $0.calls } }
        func call(_ token: AccessToken) -> AuthorizedOutcome<String> {
            let value = token.value.revealedString() ?? ""
            return state.withLock { state in
                state.calls.append(value)
                return state.accepted.contains(value) ? .success("ok") : .unauthorized
            }
        }
    }

    func perform(_ fixture: UseCaseFixture, _ refresher: RefreshSession) -> PerformAuthorizedCall {
        PerformAuthorizedCall(repository: fixture.repository, refresher: refresher, policy: fixture.policy, now: fixture.clock.now)
    }

    @Test func aUsableTokenIsSentAsIs() async throws {
        let fixture = UseCaseFixture()
        let endpoint = Endpoint(accepting: ["access-0"])
        let result = try await perform(fixture, fixture.refresher()).callAsFunction { endpoint.call($0) }
        #expect(result == "ok")
        #expect(endpoint.calls == ["access-0"])
        #expect(fixture.gateway.refreshCalls == 0)
    }

    @Test func aKnownExpiredTokenIsRefreshedFirst() async throws {
        let fixture = UseCaseFixture()
        fixture.clock.advance(by: 400)
        let endpoint = Endpoint(accepting: ["access-1"])
        _ = try await perform(fixture, fixture.refresher()).callAsFunction { endpoint.call($0) }
        #expect(endpoint.calls == ["access-1"])
        #expect(fixture.gateway.refreshCalls == 1)
    }

    @Test func a401RefreshesOnceAndRetriesOnce() async throws {
        let fixture = UseCaseFixture(accessLifetime: nil)
        let endpoint = Endpoint(accepting: ["access-1"])
        _ = try await perform(fixture, fixture.refresher()).callAsFunction { endpoint.call($0) }
        #expect(endpoint.calls == ["access-0", "access-1"])
        #expect(fixture.gateway.refreshCalls == 1)
    }

    @Test func a401AfterTheRetryIsUnauthorizedNotALoop() async throws {
        let fixture = UseCaseFixture(accessLifetime: nil)
        let endpoint = Endpoint(accepting: [])
        await #expect(throws: AuthenticationError.unauthorized) {
            try await perform(fixture, fixture.refresher()).callAsFunction { endpoint.call($0) }
        }
        #expect(endpoint.calls.count == 2)
        #expect(fixture.gateway.refreshCalls == 1)
    }

    @Test func manyConcurrentCallsAfterExpiryShareOneRefresh() async throws {
        let fixture = UseCaseFixture()
        fixture.clock.advance(by: 400)
        let endpoint = Endpoint(accepting: ["access-1"])
        let call = perform(fixture, fixture.refresher())
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<40 { group.addTask { try await call { endpoint.call($0) } } }
            for try await result in group { #expect(result == "ok") }
        }
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(endpoint.calls.count == 40)
    }

    @Test func signedOutCallsNeverReachTheServer() async {
        let fixture = UseCaseFixture(signedIn: false)
        let endpoint = Endpoint(accepting: [])
        await #expect(throws: AuthenticationError.notSignedIn) {
            try await perform(fixture, fixture.refresher()).callAsFunction { endpoint.call($0) }
        }
        #expect(endpoint.calls.isEmpty)
    }
}
