import Data
import Domain
import Foundation
import SQLiteStore
import LegacyPreferences
import TestSupport
import Testing

@Suite struct LegacyPreferencesFileTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func write(_ text: String) throws -> LegacyPreferencesFile {
        let path = directory.file("preferences.json")
        try FileBytes.write(Array(text.utf8), to: path)
        return LegacyPreferencesFile(path: path)
    }

    func repository() throws -> SecureStoreSessionRepository {
        SecureStoreSessionRepository(
            store: try SQLiteSecureItemStore.open(
                at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key"))))
    }

    @Test func migrationImportsTheTokensAndDestroysTheFile() async throws {
        let file = try write(#"{"Authorization":"Bearer legacy-access","refresh":"legacy-refresh"}"#)
        let repository = try repository()
        let outcome = try await MigrateLegacyTokens(source: file, repository: repository, now: clock.now)()
        #expect(outcome == .imported)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let session = try #require(try await repository.load())
        #expect(session.refreshToken.value.revealedString() == "legacy-refresh")
        #expect(session.accessToken.value.revealedString() == "legacy-access")
        // The store files never hold the plaintext.
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileBytes.contains(FileBytes.read(directory.file("keychain.db" + suffix)), Array("legacy-refresh".utf8)))
        }
    }

    @Test func aFileWipedByAKilledRunIsDeletedOnTheNextRun() async throws {
        let file = try write(#"{"Authorization":"a","refresh":"r"}"#)
        // What a kill between the overwrite and the unlink leaves behind.
        try FileBytes.write([UInt8](repeating: 0, count: 36), to: file.path)
        let outcome = try await MigrateLegacyTokens(source: file, repository: try repository(), now: clock.now)()
        #expect(outcome == .alreadyMigrated)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func killedAfterStoringThenRunAgainEndsImportedAndDeleted() async throws {
        let text = #"{"Authorization":"legacy-access","refresh":"legacy-refresh"}"#
        let file = try write(text)
        let repository = try repository()
        // First run stored the session but was killed before touching the file: simulate by storing
        // through the use case on a copy of the file, then restoring the original.
        _ = try await MigrateLegacyTokens(source: file, repository: repository, now: clock.now)()
        let again = try write(text)
        let outcome = try await MigrateLegacyTokens(source: again, repository: repository, now: clock.now)()
        #expect(outcome == .imported)
        #expect(!FileManager.default.fileExists(atPath: again.path))
        #expect(try await repository.load()?.refreshToken.value.revealedString() == "legacy-refresh")
    }

    @Test func noFileIsNothingToMigrate() async throws {
        let file = LegacyPreferencesFile(path: directory.file("missing.json"))
        #expect(try await MigrateLegacyTokens(source: file, repository: try repository(), now: clock.now)() == .nothingToMigrate)
    }

    @Test func anUnusableFileIsLeftAlone() async throws {
        let file = try write("<plist>not json</plist>")
        await #expect(throws: AuthenticationError.self) {
            try await MigrateLegacyTokens(source: file, repository: try repository(), now: clock.now)()
        }
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    /// An empty file reads as one an earlier run wiped, read without Foundation (whose reader leaked a
    /// page for an empty file: found by the torture bench's LeakSanitizer run).
    @Test func anEmptyFileReadsAsWiped() async throws {
        let file = try write("")
        guard case .wiped = try await file.read() else {
            Issue.record("an empty legacy file should read as wiped")
            return
        }
        let full = try write(#"{"Authorization":"Bearer a","refresh":"r"}"#)
        guard case .tokens(let access, let refresh) = try await full.read() else {
            Issue.record("the tokens should be read")
            return
        }
        #expect(access.revealedString() == "a" && refresh.revealedString() == "r")
    }

    @Test func aLargeFileWipedOnlyInPartIsFinishedOnTheNextRun() async throws {
        // A 10 KiB preferences file (padded with other settings) whose wipe was killed after 4 KiB.
        let padding = String(repeating: "x", count: 10_000)
        var bytes = Array(#"{"theme":"\#(padding)","Authorization":"a","refresh":"legacy-refresh-tail"}"#.utf8)
        for index in 0..<4096 { bytes[index] = 0 }
        let file = try write("")
        try FileBytes.write(bytes, to: file.path)
        let outcome = try await MigrateLegacyTokens(source: file, repository: try repository(), now: clock.now)()
        #expect(outcome == .alreadyMigrated)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
