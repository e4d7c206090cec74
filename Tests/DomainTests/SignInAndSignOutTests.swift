import Domain
import Foundation
import Testing

@Suite struct SignInAndSignOutTests {
    @Test func signInStoresTheSessionReplacingTheEarlierOne() async throws {
        let fixture = UseCaseFixture()
        let signIn = SignIn(gateway: fixture.gateway, repository: fixture.repository)
        let session = try await signIn(.password(username: "alice", password: SecretBytes(utf8: "right")))
        #expect(session.method == .password)
        #expect(fixture.storedRefreshToken() == "refresh-1")
    }

    @Test func aRefusedSignInStoresNothing() async throws {
        let fixture = UseCaseFixture()
        let signIn = SignIn(gateway: fixture.gateway, repository: fixture.repository)
        await #expect(throws: AuthenticationError.invalidCredentials("invalid_grant")) {
            try await signIn(.password(username: "alice", password: SecretBytes(utf8: "wrong")))
        }
        #expect(fixture.storedRefreshToken() == "refresh-0")
        #expect(fixture.repository.writeCount == 0)
    }

    @Test func emptyCredentialsNeverReachTheServer() async {
        let fixture = UseCaseFixture(signedIn: false)
        let signIn = SignIn(gateway: fixture.gateway, repository: fixture.repository)
        await #expect(throws: AuthenticationError.self) {
            try await signIn(.password(username: "", password: SecretBytes(utf8: "right")))
        }
        #expect(fixture.gateway.signInCalls == 0)
    }

    @Test func identitySignInRemembersTheProvider() async throws {
        let fixture = UseCaseFixture(signedIn: false)
        let signIn = SignIn(gateway: fixture.gateway, repository: fixture.repository)
        _ = try await signIn(.identityToken(provider: "apple", token: SecretBytes(utf8: "idtoken")))
        #expect(fixture.repository.stored?.method == .identityProvider("apple"))
    }

    @Test func signOutRevokesThenDeletes() async throws {
        let fixture = UseCaseFixture()
        let result = try await SignOut(gateway: fixture.gateway, repository: fixture.repository)()
        #expect(result == SignOutResult(revocation: .revoked, deletedLocalSession: true))
        #expect(fixture.repository.stored == nil)
    }

    @Test func signOutDeletesLocallyEvenWhenRevocationFails() async throws {
        let fixture = UseCaseFixture()
        fixture.gateway.setRevokeFails(true)
        let result = try await SignOut(gateway: fixture.gateway, repository: fixture.repository)()
        #expect(result.deletedLocalSession)
        guard case .failed = result.revocation else {
            Issue.record("expected a failed revocation, got \(result.revocation)")
            return
        }
        #expect(fixture.repository.stored == nil)
    }

    @Test func signOutWhenSignedOutSaysSo() async throws {
        let fixture = UseCaseFixture(signedIn: false)
        let result = try await SignOut(gateway: fixture.gateway, repository: fixture.repository)()
        #expect(result == SignOutResult(revocation: .notSignedIn, deletedLocalSession: false))
        #expect(fixture.gateway.revokeCalls == 0)
    }

    @Test func anUnreadableSessionIsStillDeleted() async throws {
        let fixture = UseCaseFixture()
        fixture.repository.setUnreadable("record from a newer version")
        let result = try await SignOut(gateway: fixture.gateway, repository: fixture.repository)()
        #expect(result.deletedLocalSession)
        #expect(fixture.gateway.revokeCalls == 0)
        guard case .failed = result.revocation else {
            Issue.record("an unreadable session cannot be revoked")
            return
        }
        fixture.repository.setUnreadable(nil)
        #expect(fixture.repository.stored == nil)
    }

    @Test func aLockedStoreCannotSignOut() async {
        let fixture = UseCaseFixture()
        fixture.repository.setUnavailable("locked")
        await #expect(throws: AuthenticationError.storeUnavailable("locked")) {
            try await SignOut(gateway: fixture.gateway, repository: fixture.repository)()
        }
    }
}
