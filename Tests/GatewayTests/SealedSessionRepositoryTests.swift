import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import Gateway

/// A gateway session in a real store: its tokens sealed under the cookie's key before the store sees
/// them, opened only with that cookie, and refreshed through the store's claim as any session is.
@Suite struct SealedSessionRepositoryTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func store() throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
    }

    func session(_ tag: String) throws -> Session { try .tagged(tag, at: clock.date) }

    @Test func theStoreSeesOnlySealedTokensAndTheCookieOpensThem() async throws {
        let store = try store()
        let cookie = SessionCookie.fresh()
        let plain = SecureStoreSessionRepository(store: store, account: cookie.account)
        let sealed = SealedSessionRepository(plain, cookie: cookie)
        try await sealed.replace(with: try session("1"))

        let raw = try #require(try await plain.load())
        for value in [raw.accessToken.value, raw.refreshToken.value, raw.identity?.idToken] {
            let text = try #require(value?.revealedString())
            #expect(text.hasPrefix("s1.") && !text.contains("access-1") && !text.contains("refresh-1") && !text.contains("id-token-1"))
        }
        #expect(raw.user?.id == "alice" && raw.identity?.sessionID == "idp-1")

        let opened = try #require(try await sealed.load())
        #expect(opened.accessToken.value == SecretBytes(utf8: "access-1"))
        #expect(opened.refreshToken.value == SecretBytes(utf8: "refresh-1"))
        #expect(opened.identity?.idToken == SecretBytes(utf8: "id-token-1"))
        // No string of the store's file holds a token in the clear.
        let file = try Data(contentsOf: URL(fileURLWithPath: directory.file("keychain.db")))
        #expect(file.range(of: Data("refresh-1".utf8)) == nil && file.range(of: Data("access-1".utf8)) == nil)
    }

    @Test func anotherCookieNamingTheSameSessionOpensNothing() async throws {
        let store = try store()
        let cookie = SessionCookie.fresh()
        try await SealedSessionRepository(SecureStoreSessionRepository(store: store, account: cookie.account), cookie: cookie)
            .replace(with: try session("1"))
        // A forged cookie: the real session id, another secret (one the gateway itself would refuse for
        // its tag; here the repository is tried on its own).
        let forged = SessionCookie(id: cookie.id, secret: SecretBytes(GatewaySeal.random(32)))
        #expect(forged.sessionID == cookie.sessionID)
        let stolen = SealedSessionRepository(SecureStoreSessionRepository(store: store, account: forged.account), cookie: forged)
        #expect(try await stolen.load() == nil)
        // Nor does it delete the session it names.
        #expect(try await stolen.delete() == false)
        let owner = SealedSessionRepository(SecureStoreSessionRepository(store: store, account: cookie.account), cookie: cookie)
        #expect(try await owner.load()?.refreshToken.value == SecretBytes(utf8: "refresh-1"))
        #expect(try await owner.delete() == true)
        #expect(try await owner.load() == nil)
    }

    @Test func aRefreshGoesThroughTheStoresClaimWithSealedTokens() async throws {
        let store = try store()
        let cookie = SessionCookie.fresh()
        let sealed = SealedSessionRepository(SecureStoreSessionRepository(store: store, account: cookie.account), cookie: cookie)
        try await sealed.replace(with: try session("1"))
        let current = try #require(try await sealed.load())
        let refreshed = try session("2")
        guard case .claimed = try await sealed.claimRefresh(replacing: current, owner: "me", lease: 30, now: clock.date) else {
            Issue.record("the claim on the stored generation was refused")
            return
        }
        #expect(try await sealed.markRefreshSent(replacing: current, owner: "me"))
        #expect(try await sealed.completeRefresh(replacing: current, with: refreshed, owner: "me"))
        #expect(try await sealed.load()?.refreshToken.value == SecretBytes(utf8: "refresh-2"))
        // The old generation is superseded, and the claim says so with the new tokens opened.
        guard case .superseded(let newer) = try await sealed.claimRefresh(replacing: current, owner: "other", lease: 30, now: clock.date)
        else {
            Issue.record("the old generation was not superseded")
            return
        }
        #expect(newer.accessToken.value == SecretBytes(utf8: "access-2"))
        #expect(try await sealed.deleteIfCurrent(refreshed.refreshToken))
        #expect(try await sealed.load() == nil)
    }
}
