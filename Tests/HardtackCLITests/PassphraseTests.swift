import Foundation
import TestSupport
import Testing

/// Passphrases, key sources and changing the key: wrong keys exit 77 and change nothing.
@Suite struct PassphraseTests {
    @Test func wrongPassphraseExits77AndLeavesTheFileAsItWas() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(
            service: "svc", account: "a", secret: "s", environment: CLISandbox.passphrase("right-Passphrase-1"))
        let before = FileBytes.read(sandbox.store)
        #expect(!before.isEmpty)

        let wrong = try await sandbox.keychain(
            ["find-generic-password", "-s", "svc", "-w"], environment: CLISandbox.passphrase("wrong-Passphrase-2"))
        #expect(wrong.status == 77)
        #expect(wrong.stdout.isEmpty)
        #expect(wrong.stderr.hasPrefix("hardtack: "))
        #expect(!wrong.stderr.contains("Passphrase-"))
        #expect(FileBytes.read(sandbox.store) == before)

        // No passphrase at all: the default key file is refused, and not created.
        let missing = try await sandbox.keychain(["find-generic-password", "-s", "svc"])
        #expect(missing.status == 77)
        #expect(missing.stderr.contains("passphrase"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
        #expect(FileBytes.read(sandbox.store) == before)

        let right = try await sandbox.keychain(
            ["find-generic-password", "-s", "svc", "-w"], environment: CLISandbox.passphrase("right-Passphrase-1"))
        #expect(right.stdout == "s\n")
    }

    @Test func changePassphraseRetiresTheOldOne() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "kept", environment: CLISandbox.passphrase("old-one"))

        var change = CLISandbox.passphrase("old-one")
        change["HARDTACK_NEW_PASSPHRASE"] = "new-one"
        let changed = try await sandbox.keychain(["change-passphrase"], environment: change)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(!changed.stdout.contains("new-one"))

        let old = try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"], environment: CLISandbox.passphrase("old-one"))
        #expect(old.status == 77)
        let new = try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"], environment: CLISandbox.passphrase("new-one"))
        #expect(new.status == 0)
        #expect(new.stdout == "kept\n")

        // From a passphrase file, then to a key file.
        let file = try sandbox.privateFile("third", "third-one\n")
        let toFile = try await sandbox.keychain(
            ["change-passphrase", "--new-passphrase-file", file], environment: CLISandbox.passphrase("new-one"))
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "svc"], environment: CLISandbox.passphrase("new-one")).status == 77)

        let keyFile = sandbox.directory.file("switched.key")
        let toKey = try await sandbox.keychain(
            ["--passphrase-file", file, "change-passphrase", "--new-key-file", keyFile],
            environment: ["HARDTACK_ARGON2_COST": "interactive"])
        #expect(toKey.status == 0, "\(toKey.stderr)")
        #expect(try sandbox.mode(keyFile) == 0o600)
        let viaKey = try await sandbox.keychain(["--key-file", keyFile, "find-generic-password", "-s", "svc", "-w"])
        #expect(viaKey.stdout == "kept\n")
        let viaOld = try await sandbox.keychain(
            ["--passphrase-file", file, "find-generic-password", "-s", "svc"], environment: ["HARDTACK_ARGON2_COST": "interactive"])
        #expect(viaOld.status == 77)
    }

    @Test func passphraseFileUsesItsFirstLineAndComesFirst() async throws {
        let sandbox = CLISandbox()
        let file = try sandbox.privateFile("passphrase", "first-line\nsecond-line\n")
        let cheap = ["HARDTACK_ARGON2_COST": "interactive"]
        let added = try await sandbox.keychain(
            ["--passphrase-file", file, "add-generic-password", "-s", "svc", "-a", "a", "-w", "s"], environment: cheap)
        #expect(added.status == 0, "\(added.stderr)")

        #expect(try await sandbox.keychain(["find-generic-password", "-s", "svc"], environment: CLISandbox.passphrase("first-line")).status == 0)
        // The file wins over the variable.
        let both = try await sandbox.keychain(
            ["--passphrase-file", file, "find-generic-password", "-s", "svc"], environment: CLISandbox.passphrase("other"))
        #expect(both.status == 0)

        let open = try sandbox.privateFile("open-passphrase", "first-line\n")
        #expect(chmod(open, 0o644) == 0)
        let refused = try await sandbox.keychain(["--passphrase-file", open, "find-generic-password", "-s", "svc"], environment: cheap)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("chmod 600"))
    }

    @Test func keyFromAnEnvironmentVariable() async throws {
        let sandbox = CLISandbox()
        let key = String(repeating: "7f", count: 32)
        let added = try await sandbox.keychain(
            ["--key-env", "TEST_KEY", "add-generic-password", "-s", "svc", "-a", "a", "-w", "s"],
            environment: ["TEST_KEY": key])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
        let found = try await sandbox.keychain(
            ["--key-env", "TEST_KEY", "find-generic-password", "-s", "svc", "-w"], environment: ["TEST_KEY": key])
        #expect(found.stdout == "s\n")
        let wrong = try await sandbox.keychain(
            ["--key-env", "TEST_KEY", "find-generic-password", "-s", "svc"],
            environment: ["TEST_KEY": String(repeating: "01", count: 32)])
        #expect(wrong.status == 77)
        let unset = try await sandbox.keychain(["--key-env", "TEST_KEY", "find-generic-password", "-s", "svc"])
        #expect(unset.status == 77)
        #expect(unset.stderr.contains("TEST_KEY"))
    }

    @Test func keyFromASystemdCredential() async throws {
        let sandbox = CLISandbox()
        let credentials = sandbox.directory.file("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(
            atPath: credentials + "/store-key", contents: Data(String(repeating: "ab", count: 32).utf8),
            attributes: [.posixPermissions: 0o600]))
        let environment = ["CREDENTIALS_DIRECTORY": credentials]
        let added = try await sandbox.keychain(
            ["--key-credential", "store-key", "add-generic-password", "-s", "svc", "-a", "a", "-w", "s"],
            environment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
        let found = try await sandbox.keychain(
            ["--key-credential", "store-key", "find-generic-password", "-s", "svc", "-w"], environment: environment)
        #expect(found.stdout == "s\n")
        let withoutSystemd = try await sandbox.keychain(["--key-credential", "store-key", "find-generic-password", "-s", "svc"])
        #expect(withoutSystemd.status == 77)
        #expect(withoutSystemd.stderr.contains("CREDENTIALS_DIRECTORY"))
    }
}
