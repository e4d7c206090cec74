import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

/// The issuer's endpoints kept with a session: they survive the store, records without them (written
/// before, or by the other flows) still load, and remembered endpoints are checked again before use.
@Suite struct SessionIssuerRecordTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()
    let origin = SessionIssuer(
        issuer: "https://id.example.com", clientID: "app", tokenEndpoint: "https://id.example.com/token",
        revocationEndpoint: "https://id.example.com/revoke", userinfoEndpoint: nil)

    func repository() throws -> SecureStoreSessionRepository {
        SecureStoreSessionRepository(store: try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key"))))
    }

    func session(_ method: SignInMethod, issuer: SessionIssuer?) throws -> Session {
        Session(
            accessToken: try AccessToken(value: SecretBytes(utf8: "at"), issuedAt: clock.date, expiresAt: clock.date + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "rt"), expiresAt: nil),
            user: User(id: "u1", name: "Alice"), method: method, issuer: issuer)
    }

    @Test(arguments: [SignInMethod.authorizationCode, .deviceCode])
    func theIssuerRoundTripsThroughTheStore(_ method: SignInMethod) async throws {
        let repository = try repository()
        try await repository.replace(with: try session(method, issuer: origin))
        let loaded = try #require(try await repository.load())
        #expect(loaded.issuer == origin && loaded.method == method)
    }

    /// A client secret (for providers that demand one) comes back with the session, lives in an item of
    /// its own and never in the record, and goes when a session without one replaces it.
    @Test func aClientSecretIsKeptAsAnItemOfItsOwn() async throws {
        let store = try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
        let repository = SecureStoreSessionRepository(store: store)
        let withSecret = SessionIssuer(
            issuer: origin.issuer, clientID: "app", tokenEndpoint: origin.tokenEndpoint,
            revocationEndpoint: origin.revocationEndpoint, userinfoEndpoint: nil,
            clientSecret: SecretBytes(utf8: "client-secret-value"))
        try await repository.replace(with: try session(.authorizationCode, issuer: withSecret))
        let loaded = try #require(try await repository.load())
        #expect(loaded.issuer?.clientSecret == SecretBytes(utf8: "client-secret-value"))
        #expect(loaded.issuer == withSecret)

        let secretItem = try await store.find(
            .genericPassword(service: SecureStoreSessionRepository.defaultService, account: "client-secret"),
            limit: .one, returning: .data)
        #expect(secretItem.first?.data == SecretBytes(utf8: "client-secret-value"))
        let record = try await store.find(
            .genericPassword(service: SecureStoreSessionRepository.defaultService, account: "session"),
            limit: .one, returning: .data)
        let recordText = try #require(record.first?.data?.revealedString())
        #expect(!recordText.contains("client-secret-value") && !recordText.contains("\"clientSecret\""))
        #expect(recordText.contains("\"clientSecretKept\":true"))

        try await repository.replace(with: try session(.authorizationCode, issuer: origin))
        #expect(try #require(try await repository.load()).issuer?.clientSecret == nil)
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.find(
                .genericPassword(service: SecureStoreSessionRepository.defaultService, account: "client-secret"),
                limit: .one, returning: .data)
        }
    }

    /// The ID token and the issuer's session id come back with the session; the token lives in an item of
    /// its own (never the record), is kept through a refresh, and goes when a session without one replaces it.
    @Test func theIdentityIsKeptBesideTheRecord() async throws {
        let store = try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
        let repository = SecureStoreSessionRepository(store: store)
        var signedIn = try session(.authorizationCode, issuer: origin)
        signedIn.identity = SignInIdentity(idToken: SecretBytes(utf8: "eyJ.id-token.sig"), sessionID: "idp-sid-1")
        try await repository.replace(with: signedIn)
        let loaded = try #require(try await repository.load())
        #expect(loaded.identity?.idToken == SecretBytes(utf8: "eyJ.id-token.sig"))
        #expect(loaded.identity?.sessionID == "idp-sid-1")
        let record = try await store.find(
            .genericPassword(service: SecureStoreSessionRepository.defaultService, account: "session"),
            limit: .one, returning: .data)
        let recordText = try #require(record.first?.data?.revealedString())
        #expect(!recordText.contains("id-token.sig") && recordText.contains("\"idTokenKept\":true"))

        let refreshed = loaded.refreshed(
            with: TokenRefresh(
                accessToken: try AccessToken(value: SecretBytes(utf8: "at2"), issuedAt: clock.date, expiresAt: nil),
                refreshToken: try RefreshToken(value: SecretBytes(utf8: "rt2"), expiresAt: nil)))
        guard case .claimed = try await repository.claimRefresh(replacing: loaded, owner: "o", lease: 30, now: clock.date),
            try await repository.markRefreshSent(replacing: loaded, owner: "o"),
            try await repository.completeRefresh(replacing: loaded, with: refreshed, owner: "o")
        else {
            Issue.record("the refresh did not go through")
            return
        }
        #expect(try #require(try await repository.load()).identity?.sessionID == "idp-sid-1")

        try await repository.replace(with: try session(.password, issuer: nil))
        #expect(try #require(try await repository.load()).identity == nil)
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.find(
                .genericPassword(service: SecureStoreSessionRepository.defaultService, account: "id-token"),
                limit: .one, returning: .data)
        }
    }

    @Test func aSessionWithoutAnIssuerStillLoads() async throws {
        let repository = try repository()
        try await repository.replace(with: try session(.password, issuer: nil))
        #expect(try #require(try await repository.load()).issuer == nil)
    }

    @Test func rememberedEndpointsAreCheckedAgain() {
        #expect(ProviderMetadata(remembered: origin)?.tokenEndpoint.path == "/token")
        let plain = SessionIssuer(
            issuer: origin.issuer, clientID: "app", tokenEndpoint: "http://id.example.com/token",
            revocationEndpoint: nil, userinfoEndpoint: nil)
        #expect(ProviderMetadata(remembered: plain) == nil)
    }
}
