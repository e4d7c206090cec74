import Foundation
import TestSupport
import Testing

/// Advice about the store's location that is safe to follow (never to make a shared directory such as
/// /tmp private), a symbolic link as the store's directory followed when it leads to a private
/// directory of this user's, and nothing left behind by a refusal.
@Suite struct PathAdviceTests {
    let sandbox = CLISandbox()

    private func contents(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test func aSharedDirectoryIsNeverToBeMadePrivate() async throws {
        let shared = sandbox.directory.file("shared")
        #expect(mkdir(shared, 0o777) == 0 && chmod(shared, 0o1777) == 0)
        let result = try await sandbox.run(
            ["keychain", "--store", shared + "/x.db", "add-generic-password", "-s", "svc", "-a", "a", "-w", "s"])
        #expect(result.status == 1)
        #expect(!result.stderr.contains("chmod"), "\(result.stderr)")
        #expect(result.stderr.contains("directory of its own"))
        #expect(contents(shared).isEmpty)
        #expect(try sandbox.mode(shared) == 0o1777)
        // Following the advice works: a directory that does not exist yet, made 0700.
        let suggested = shared + "/hardtack-\(geteuid())/keychain.db"
        #expect(result.stderr.contains(suggested))
        let again = try await sandbox.run(
            ["keychain", "--store", suggested, "add-generic-password", "-s", "svc", "-a", "a", "-w", "s"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try sandbox.mode(shared + "/hardtack-\(geteuid())") == 0o700)
    }

    @Test func aSymlinkedDefaultDirectoryLeadingToAPrivateOneIsFollowed() async throws {
        let home = sandbox.directory.file("home")
        #expect(mkdir(home, 0o700) == 0)
        try FileManager.default.createDirectory(atPath: home + "/.local/share", withIntermediateDirectories: true)
        let real = sandbox.directory.file("elsewhere")
        #expect(mkdir(real, 0o700) == 0)
        try FileManager.default.createSymbolicLink(atPath: home + "/.local/share/hardtack", withDestinationPath: real)
        let add = try await sandbox.run(["keychain", "add-generic-password", "-s", "svc", "-a", "a", "-w", "kept"])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(contents(real) == ["keychain.db", "keychain.db.key"])
        let find = try await sandbox.run(["keychain", "find-generic-password", "-s", "svc", "-w"])
        #expect(find.stdout == "kept\n")
    }

    @Test func aSymlinkedDirectoryOthersCanOpenIsRefusedByItsRealNameAndLeavesNothing() async throws {
        let home = sandbox.directory.file("home")
        try FileManager.default.createDirectory(atPath: home + "/.local/share", withIntermediateDirectories: true)
        let real = sandbox.directory.file("open")
        #expect(mkdir(real, 0o755) == 0 && chmod(real, 0o755) == 0)
        try FileManager.default.createSymbolicLink(atPath: home + "/.local/share/hardtack", withDestinationPath: real)
        let add = try await sandbox.run(["keychain", "add-generic-password", "-s", "svc", "-a", "a", "-w", "s"])
        #expect(add.status == 1)
        #expect(add.stderr.contains("chmod 700 \(real)"), "\(add.stderr)")
        #expect(!add.stderr.contains("Name the real"))
        #expect(contents(real).isEmpty)
    }

    @Test func aRefusedKeyFileLeavesNoStubStore() async throws {
        let directory = sandbox.directory.file("keys")
        #expect(mkdir(directory, 0o700) == 0)
        let key = directory + "/k.key"
        #expect(FileManager.default.createFile(atPath: key, contents: Data(repeating: 7, count: 32)))
        #expect(chmod(key, 0o644) == 0)
        let result = try await sandbox.keychain(
            ["--key-file", key, "add-generic-password", "-s", "svc", "-a", "a", "-w", "s"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("chmod 600 \(key)"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }
}
