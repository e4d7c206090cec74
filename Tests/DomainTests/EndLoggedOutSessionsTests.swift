import Domain
import Foundation
import Testing
import TestSupport

/// Back-channel logout's rule: which sessions a logout names, and that exactly those are deleted,
/// once.
@Suite struct EndLoggedOutSessionsTests {
    /// A catalog of in-memory sessions, keyed as the gateway keys them.
    final class Catalog: SessionCatalog {
        let repositories: [String: InMemorySessionRepository]

        init(_ sessions: [String: Session]) {
            repositories = sessions.mapValues { InMemorySessionRepository(session: $0) }
        }

        func sessions() async throws(AuthenticationError) -> [(key: String, session: Session)] {
            repositories.sorted { $0.key < $1.key }.compactMap { key, repository in repository.stored.map { (key, $0) } }
        }

        func repository(for key: String) -> any SessionRepository {
            repositories[key] ?? InMemorySessionRepository(session: nil)
        }

        func keys() async throws(AuthenticationError) -> Set<String> {
            Set(repositories.filter { $0.value.stored != nil }.keys)
        }

        var remaining: [String] { repositories.filter { $0.value.stored != nil }.keys.sorted() }
    }

    let fixture = UseCaseFixture()

    func session(user: String, sid: String?) -> Session {
        var session = fixture.gateway.makeSession(serial: 1)
        session.user = User(id: user, name: user)
        session.identity = sid.map { SignInIdentity(idToken: SecretBytes(utf8: "id-token"), sessionID: $0) }
        return session
    }

    @Test func aLogoutNamesSessionsBySidThenBySub() throws {
        let aliceS1 = session(user: "alice", sid: "s1")
        let aliceNoSid = session(user: "alice", sid: nil)
        let bobS2 = session(user: "bob", sid: "s2")
        let bySid = try #require(IssuerLogout(sessionID: "s1", subject: nil))
        #expect(bySid.names(aliceS1) && !bySid.names(aliceNoSid) && !bySid.names(bobS2))
        let bySub = try #require(IssuerLogout(sessionID: nil, subject: "alice"))
        #expect(bySub.names(aliceS1) && bySub.names(aliceNoSid) && !bySub.names(bobS2))
        let both = try #require(IssuerLogout(sessionID: "s2", subject: "alice"))
        #expect(!both.names(bobS2), "the sid matches but the user does not")
        #expect(try #require(IssuerLogout(sessionID: "s2", subject: "bob")).names(bobS2))
        #expect(IssuerLogout(sessionID: nil, subject: nil) == nil, "a logout must name something")
    }

    @Test func exactlyTheNamedSessionsAreDeleted() async throws {
        let catalog = Catalog([
            "a": session(user: "alice", sid: "s1"), "b": session(user: "alice", sid: "s3"),
            "c": session(user: "bob", sid: "s2"),
        ])
        let ended = try await EndLoggedOutSessions(catalog: catalog)(try #require(IssuerLogout(sessionID: nil, subject: "alice")))
        #expect(ended == ["a", "b"])
        #expect(catalog.remaining == ["c"])
        let again = try await EndLoggedOutSessions(catalog: catalog)(try #require(IssuerLogout(sessionID: "s1", subject: nil)))
        #expect(again.isEmpty, "applying a logout twice ends nothing more")
    }
}
