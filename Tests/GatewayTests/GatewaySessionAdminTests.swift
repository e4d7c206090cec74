import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import Gateway

/// The operators' view of a real store's gateway sessions: the listing, and the sweep that removes what
/// is over (expired, idle, old logout tokens) in bounded batches and nothing else.
@Suite struct GatewaySessionAdminTests {
    let directory = TemporaryDirectory()

    func store() throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
    }

    /// Stores a session for `user` under a fresh cookie's account, its refresh token ending at `expires`,
    /// with a recorded use at `used`; its session id.
    func add(_ store: SQLiteSecureItemStore, user: String, expires: Date?, used: Date?) async throws -> String {
        let cookie = SessionCookie.fresh()
        let session = Session(
            accessToken: try AccessToken(value: SecretBytes(utf8: "access-\(user)"), issuedAt: Date(), expiresAt: Date() + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh-\(user)"), expiresAt: expires),
            user: User(id: user, name: user.capitalized), method: .authorizationCode)
        try await SecureStoreSessionRepository(store: store, account: cookie.account).replace(with: session)
        if let used {
            try await store.add(
                SessionActivity.item(cookie.account, in: store), data: SecretBytes(utf8: String(Int64(used.timeIntervalSince1970))))
        }
        return cookie.sessionID
    }

    func addLogoutToken(_ store: SQLiteSecureItemStore, _ name: String, until: Date) async throws {
        try await store.add(
            .genericPassword(service: GatewayStoreItems.service + ".logout-token", account: name),
            data: SecretBytes(utf8: String(Int64(until.timeIntervalSince1970))))
    }

    @Test func theListingShowsWhoAndWhenButNoToken() async throws {
        let store = try store()
        let now = Date()
        let alice = try await add(store, user: "alice", expires: now + 3600, used: now - 30)
        let bob = try await add(store, user: "bob", expires: nil, used: nil)
        let admin = GatewaySessionAdmin(store: store)
        let all = try await admin.sessions()
        #expect(Set(all.map(\.sessionID)) == [alice, bob])
        let first = try #require(all.first { $0.sessionID == alice })
        #expect(first.user == User(id: "alice", name: "Alice"))
        #expect(first.lastUsedAt.map { abs($0.timeIntervalSince(now - 30)) < 1 } == true)
        #expect(first.expiresAt.map { abs($0.timeIntervalSince(now + 3600)) < 1 } == true)
        #expect(first.signedInAt.map { abs($0.timeIntervalSince(now)) < 60 } == true)
        let second = try #require(all.first { $0.sessionID == bob })
        #expect(second.lastUsedAt == nil && second.expiresAt == nil)
        #expect(try await admin.sessions(user: "bob").map(\.sessionID) == [bob])
        #expect(try await admin.sessions(user: "carol").isEmpty)
    }

    @Test func aSweepRemovesWhatIsOverInBatchesAndNothingElse() async throws {
        let store = try store()
        let now = Date()
        let expired1 = try await add(store, user: "alice", expires: now - 10, used: now - 5)
        let expired2 = try await add(store, user: "bob", expires: now - 1, used: now - 5)
        let idle = try await add(store, user: "carol", expires: now + 3600, used: now - 1000)
        let busy = try await add(store, user: "dave", expires: now + 86400, used: now - 10)
        let unrecorded = try await add(store, user: "erin", expires: nil, used: nil)
        try await addLogoutToken(store, "old", until: now - 1)
        try await addLogoutToken(store, "recent", until: now + 600)
        let admin = GatewaySessionAdmin(store: store)

        let first = try await admin.sweep(idleTimeout: 600, now: now, batch: 1)
        #expect(first.expired == 1 && first.idle == 1 && first.logoutTokens == 1 && first.filledBatch)
        let second = try await admin.sweep(idleTimeout: 600, now: now, batch: 1)
        #expect(second == GatewaySweep(expired: 1, idle: 0, orphanedRecords: 0, logoutTokens: 0, filledBatch: true))
        let third = try await admin.sweep(idleTimeout: 600, now: now, batch: 1)
        #expect(third == GatewaySweep(), "nothing more is over")
        let left = Set(try await admin.sessions().map(\.sessionID))
        #expect(left == [busy, unrecorded])
        #expect(left.isDisjoint(with: [expired1, expired2, idle]))
        let tokens = try await store.find(
            .genericPassword(service: GatewayStoreItems.service + ".logout-token"), limit: .all, returning: .attributes)
        #expect(tokens.compactMap { $0.attributes?.string(.account) } == ["recent"])
        // The items of the ended sessions went with them: their last-use records too.
        let records = try await store.find(.genericPassword(account: "last-used"), limit: .all, returning: .attributes)
        #expect(records.count == 1, "only the busy session's record is left")

        // Without a recorded use, the sign-in counts; with no idle limit, nothing is idle.
        #expect(try await admin.sweep(idleTimeout: nil, now: now + 7200, batch: 10).idle == 0)
        let late = try await admin.sweep(idleTimeout: 600, now: now + 7200, batch: 10)
        #expect(late.idle == 2 && late.expired == 0)
        #expect(try await admin.sessions().isEmpty)
    }

    @Test func aRecordOfUseWrittenBackAfterItsSessionEndedIsSweptAndNothingElse() async throws {
        let store = try store()
        let now = Date()
        let kept = try await add(store, user: "alice", expires: now + 3600, used: now - 5)
        // A call that outlived its session (revoked while its upstream answered) records its use afterwards.
        let gone = SessionCookie.fresh()
        try await store.add(SessionActivity.item(gone.account, in: store), data: SecretBytes(utf8: "1800000000"))
        let swept = try await GatewaySessionAdmin(store: store).sweep(idleTimeout: 600, now: now)
        #expect(swept == GatewaySweep(expired: 0, idle: 0, orphanedRecords: 1, logoutTokens: 0, filledBatch: false))
        let records = try await store.find(.genericPassword(account: "last-used"), limit: .all, returning: .attributes)
        #expect(records.compactMap { $0.attributes?.string(.service) } == [
            SecureStoreSessionRepository.service(for: try #require(AccountName("gateway/" + kept)))
        ])
    }

    @Test func aSweepThatCannotReadTheRecordsOfUseEndsNothing() async throws {
        let store = try store()
        let now = Date()
        // Signed in long ago and in use now: only its record of use says so.
        let busy = try await add(store, user: "alice", expires: now + 86400, used: now - 5)
        // Reads of records of use fail as a store that went away would: the sweep must not take them for
        // missing ones (and fall back to the sign-in time).
        let unreadable = PortOnlyStore(base: store) { query in
            query.string(.account) == "last-used"
                ? .storage(StorageFailure(backend: "test", kind: .unavailable, message: "the server went away")) : nil
        }
        await #expect(throws: AuthenticationError.self) {
            _ = try await GatewaySessionAdmin(store: unreadable).sweep(idleTimeout: 600, now: now + 7200, batch: 10)
        }
        #expect(try await GatewaySessionAdmin(store: store).sessions().map(\.sessionID) == [busy])
    }
}
