import Domain
import Foundation
import TestSupport
import Testing

@Suite struct MigrateLegacyTokensTests {
    func legacy() -> FakeLegacyTokenSource {
        FakeLegacyTokenSource(.tokens(access: SecretBytes(utf8: "old-access"), refresh: SecretBytes(utf8: "old-refresh")))
    }

    @Test func importsThenDestroysThePlaintext() async throws {
        let fixture = UseCaseFixture(signedIn: false)
        let source = legacy()
        let outcome = try await MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)()
        #expect(outcome == .imported)
        #expect(!source.exists)
        #expect(fixture.storedRefreshToken() == "old-refresh")
        #expect(fixture.repository.stored?.method == .legacyImport)
    }

    @Test func runningTwiceIsHarmless() async throws {
        let fixture = UseCaseFixture(signedIn: false)
        let source = legacy()
        let migrate = MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)
        #expect(try await migrate() == .imported)
        #expect(try await migrate() == .nothingToMigrate)
        #expect(fixture.storedRefreshToken() == "old-refresh")
    }

    @Test func killedAfterStoringItFinishesOnTheNextRun() async throws {
        let fixture = UseCaseFixture(signedIn: false)
        let source = legacy()
        source.failNextDelete()
        let migrate = MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)
        await #expect(throws: AuthenticationError.self) { try await migrate() }
        #expect(source.exists)
        #expect(fixture.storedRefreshToken() == "old-refresh")
        #expect(try await migrate() == .alreadyMigrated)
        #expect(!source.exists)
    }

    @Test func anExistingSessionWinsOverTheLegacyFile() async throws {
        let fixture = UseCaseFixture(signedIn: true)
        let source = legacy()
        let outcome = try await MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)()
        #expect(outcome == .alreadyMigrated)
        #expect(fixture.storedRefreshToken() == "refresh-0")
        #expect(!source.exists)
    }

    @Test func aStoreThatCannotBeWrittenLeavesTheFile() async throws {
        let fixture = UseCaseFixture(signedIn: false)
        fixture.repository.setUnavailable("locked")
        let source = legacy()
        await #expect(throws: AuthenticationError.storeUnavailable("locked")) {
            try await MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)()
        }
        #expect(source.exists)
    }
}
