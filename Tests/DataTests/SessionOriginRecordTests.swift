import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

/// The session record keeps where and how it was signed in; a record written before it did still loads.
@Suite struct SessionOriginRecordTests {
    let directory = TemporaryDirectory()

    func session(origin: SessionOrigin?) throws -> Session {
        Session(
            accessToken: try AccessToken(value: SecretBytes(utf8: "access"), issuedAt: Date(), expiresAt: nil),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh"), expiresAt: nil), user: nil,
            method: .password, origin: origin)
    }

    @Test func theOriginRoundTripsAndSurvivesARefresh() async throws {
        let store = try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
        let repository = SecureStoreSessionRepository(store: store)
        let origin = SessionOrigin(server: "https://auth.example.com", contract: "header", clientID: "app")
        try await repository.replace(with: try session(origin: origin))
        #expect(try await repository.load()?.origin == origin)
        let refreshed = try #require(try await repository.load()).refreshed(
            with: TokenRefresh(
                accessToken: try AccessToken(value: SecretBytes(utf8: "access-2"), issuedAt: Date(), expiresAt: nil),
                refreshToken: nil))
        try await repository.replace(with: refreshed)
        #expect(try await repository.load()?.origin == origin)
    }

    @Test func aRecordWithoutAnOriginLoadsWithNone() async throws {
        let store = try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
        let repository = SecureStoreSessionRepository(store: store)
        try await repository.replace(with: try session(origin: nil))
        // What an older version wrote: the same record without the three fields.
        let old = #"{"version":1,"method":"password","accessIssuedAt":1700000000000}"#
        try store.transaction { transaction in
            _ = try transaction.update(
                .genericPassword(service: "hardtack.session", account: "session"), data: SecretBytes(utf8: old))
        }
        let loaded = try #require(try await repository.load())
        #expect(loaded.origin == nil)
        #expect(loaded.method == .password)
    }
}
