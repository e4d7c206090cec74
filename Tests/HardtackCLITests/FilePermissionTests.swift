import Foundation
import Testing

/// The store's files are private whatever the umask, and a store others could read, or reached through
/// a symbolic link, is refused.
@Suite struct FilePermissionTests {
    @Test func filesArePrivateEvenUnderUmask000() async throws {
        let sandbox = CLISandbox()
        let executable = try #require(HardtackExecutable.path)
        let store = sandbox.directory.file("open/nested/keychain.db")
        let result = try await sandbox.runProcess(
            "/bin/sh",
            ["-c", "umask 000; exec \"$0\" \"$@\"", executable, "keychain", "--store", store, "add-generic-password",
             "-s", "svc", "-a", "a", "-w", "s"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.mode(sandbox.directory.file("open/nested")) == 0o700)
        #expect(try sandbox.mode(store) == 0o600)
        #expect(try sandbox.mode(store + ".key") == 0o600)
        if FileManager.default.fileExists(atPath: store + "-wal") { #expect(try sandbox.mode(store + "-wal") == 0o600) }

        // The same under umask 000 for a passphrase store, whose log may outlive nothing but is checked anyway.
        let second = sandbox.directory.file("open/second/keychain.db")
        let withPassphrase = try await sandbox.runProcess(
            "/bin/sh",
            ["-c", "umask 000; exec \"$0\" \"$@\"", executable, "keychain", "--store", second, "add-generic-password",
             "-s", "svc", "-a", "a", "-w", "s"],
            environment: CLISandbox.passphrase("umask-test"))
        #expect(withPassphrase.status == 0, "\(withPassphrase.stderr)")
        #expect(try sandbox.mode(sandbox.directory.file("open/second")) == 0o700)
        #expect(try sandbox.mode(second) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: second + ".key"))
    }

    @Test func aStoreOthersCanReadIsRefused() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "s")
        #expect(chmod(sandbox.store, 0o644) == 0)
        let result = try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("chmod 600"))
        #expect(result.stderr.contains(sandbox.store))

        #expect(chmod(sandbox.store, 0o600) == 0)
        #expect(chmod(sandbox.keyFile, 0o640) == 0)
        let key = try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"])
        #expect(key.status != 0)
        #expect(key.stderr.contains("chmod 600"))
        #expect(chmod(sandbox.keyFile, 0o600) == 0)
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"]).stdout == "s\n")
    }

    @Test func aSymlinkedStoreIsRefused() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "s")
        let link = sandbox.directory.file("store/link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sandbox.store)
        let result = try await sandbox.run(
            ["keychain", "--store", link, "--key-file", sandbox.keyFile, "find-generic-password", "-s", "svc", "-w"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("symbolic link"))
    }
}
