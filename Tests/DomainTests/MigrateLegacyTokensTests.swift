import Domain
import Foundation
import TestSupport
import Testing

@Suite struct MigrateLegacyTokensTests {
    func legacy() -> FakeLegacyTokenSource {
        FakeLegacyTokenSource(.tokens(access: SecretBytes(utf8: "old-access"), refresh: SecretBytes(utf8: "old-refresh")))
    }

    @Test func importsThenDestroysThePlaintext() throws {
        let fixture = UseCaseFixture(signedIn: false)
        let source = legacy()
        let outcome = try MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)()
        #expect(outcome == .imported)
        #expect(!source.exists)
        #expect(fixture.storedRefreshToken() == "old-refresh")
        #expect(fixture.repository.stored?.method == .legacyImport)
    }

    @Test func runningTwiceIsHarmless() throws {
        let fixture = UseCaseFixture(signedIn: false)
        let source = legacy()
        let migrate = MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)
        #expect(try migrate() == .imported)
        #expect(try migrate() == .nothingToMigrate)
        #expect(fixture.storedRefreshToken() == "old-refresh")
    }

    @Test func killedAfterStoringItFinishesOnTheNextRun() throws {
        let fixture = UseCaseFixture(signedIn: false)
        let source = legacy()
        source.failNextDelete()
        let migrate = MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)
        #expect(throws: AuthenticationError.self) { try migrate() }
        #expect(source.exists)
        #expect(fixture.storedRefreshToken() == "old-refresh")
        #expect(try migrate() == .alreadyMigrated)
        #expect(!source.exists)
    }

    @Test func anExistingSessionWinsOverTheLegacyFile() throws {
        let fixture = UseCaseFixture(signedIn: true)
        let source = legacy()
        let outcome = try MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)()
        #expect(outcome == .alreadyMigrated)
        #expect(fixture.storedRefreshToken() == "refresh-0")
        #expect(!source.exists)
    }

    @Test func aStoreThatCannotBeWrittenLeavesTheFile() throws {
        let fixture = UseCaseFixture(signedIn: false)
        fixture.repository.setUnavailable("locked")
        let source = legacy()
        #expect(throws: AuthenticationError.storeUnavailable("locked")) {
            try MigrateLegacyTokens(source: source, repository: fixture.repository, now: fixture.clock.now)()
        }
        #expect(source.exists)
    }
}
