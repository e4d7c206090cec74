import Domain
import Foundation
import Testing
import TestSupport

/// The operator's and the sweep's rule: which sessions a selection names, that exactly those are
/// deleted, and that a batch ends no more than its limit.
@Suite struct EndSessionsTests {
    typealias Catalog = EndLoggedOutSessionsTests.Catalog

    let fixture = UseCaseFixture()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func session(user: String, refreshExpires: Date?) throws -> Session {
        var session = fixture.gateway.makeSession(serial: 1)
        session.user = User(id: user, name: user)
        session.refreshToken = try RefreshToken(value: SecretBytes(utf8: "refresh-\(user)"), expiresAt: refreshExpires)
        return session
    }

    @Test func aSelectionNamesByUserByKeyOrByAnExpiredRefreshToken() throws {
        let live = try session(user: "alice", refreshExpires: now + 60)
        let over = try session(user: "alice", refreshExpires: now - 1)
        let endless = try session(user: "bob", refreshExpires: nil)
        #expect(EndSessions.selects(.user("alice"), key: "a", session: live))
        #expect(!EndSessions.selects(.user("alice"), key: "c", session: endless))
        #expect(EndSessions.selects(.sessions(["a", "b"]), key: "b", session: endless))
        #expect(!EndSessions.selects(.sessions(["a"]), key: "b", session: live))
        #expect(EndSessions.selects(.expired(at: now), key: "b", session: over))
        #expect(!EndSessions.selects(.expired(at: now), key: "a", session: live))
        #expect(!EndSessions.selects(.expired(at: now), key: "c", session: endless), "no expiry: never over by time")
    }

    @Test func exactlyTheSelectedSessionsAreDeletedWithinTheLimit() async throws {
        let catalog = Catalog([
            "a": try session(user: "alice", refreshExpires: now - 10), "b": try session(user: "alice", refreshExpires: now - 5),
            "c": try session(user: "bob", refreshExpires: now - 1), "d": try session(user: "bob", refreshExpires: now + 60),
        ])
        let batch = try await EndSessions(catalog: catalog)(.expired(at: now), limit: 2)
        #expect(batch == ["a", "b"])
        #expect(catalog.remaining == ["c", "d"])
        #expect(try await EndSessions(catalog: catalog)(.expired(at: now)) == ["c"])
        #expect(try await EndSessions(catalog: catalog)(.user("bob")) == ["d"])
        #expect(try await EndSessions(catalog: catalog)(.sessions(["d", "zz"])).isEmpty, "ending twice ends nothing more")
        #expect(catalog.remaining.isEmpty)
    }
}
