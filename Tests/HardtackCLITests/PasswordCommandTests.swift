import Foundation
import Testing

/// Adding, finding, updating and deleting generic and internet passwords through the executable.
@Suite struct PasswordCommandTests {
    @Test func genericPasswordRoundTrip() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(
            service: "mail", account: "alice", secret: "correct horse", extra: ["-l", "Mail \"work\"", "-j", "note"])

        let found = try await sandbox.keychain(["find-generic-password", "-s", "mail", "-a", "alice"])
        #expect(found.status == 0)
        #expect(found.stdout.contains(#"class: "genericPassword""#))
        #expect(found.stdout.contains(#"    "service"<string>="mail""#))
        #expect(found.stdout.contains(#"    "account"<string>="alice""#))
        #expect(found.stdout.contains(#"    "label"<string>="Mail \"work\"""#))
        #expect(found.stdout.contains(#"    "comment"<string>="note""#))
        #expect(found.stdout.contains(#"    "accessGroup"<string>="default""#))
        #expect(!found.stdout.contains("correct horse"))

        let secret = try await sandbox.keychain(["find-generic-password", "-s", "mail", "-w"])
        #expect(secret.status == 0)
        #expect(secret.stdout == "correct horse\n")
        #expect(secret.stderr.isEmpty)

        let deleted = try await sandbox.keychain(["delete-generic-password", "-s", "mail", "-a", "alice"])
        #expect(deleted.status == 0)
        let gone = try await sandbox.keychain(["find-generic-password", "-s", "mail", "-w"])
        #expect(gone.status == 44)
        #expect(gone.stdout.isEmpty)
    }

    @Test func nothingToFindOrDeleteExits44() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "present", account: "a", secret: "s")
        for arguments in [
            ["find-generic-password", "-s", "absent"], ["find-generic-password", "-s", "present", "-a", "b", "-w"],
            ["delete-generic-password", "-s", "absent"], ["find-internet-password", "-s", "present"],
            ["delete-internet-password", "-s", "example.org"],
        ] {
            let result = try await sandbox.keychain(arguments)
            #expect(result.status == 44, "\(arguments)")
            #expect(result.stderr.hasPrefix("hardtack: "))
            #expect(result.stderr.contains("could not be found"))
        }
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "present", "-w"]).stdout == "s\n")
    }

    @Test func duplicateAddExits45AndDashUUpdates() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "svc", account: "acct", secret: "first")

        let duplicate = try await sandbox.keychain(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "second"])
        #expect(duplicate.status == 45)
        #expect(duplicate.stderr.contains("-U"))
        #expect(!duplicate.stderr.contains("second"))
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"]).stdout == "first\n")

        let updated = try await sandbox.keychain(
            ["add-generic-password", "-s", "svc", "-a", "acct", "-w", "second", "-l", "relabelled", "-U"])
        #expect(updated.status == 0)
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"]).stdout == "second\n")
        #expect(try await sandbox.keychain(["find-generic-password", "-l", "relabelled"]).status == 0)

        let addedByUpdate = try await sandbox.keychain(["add-generic-password", "-s", "svc", "-a", "other", "-w", "third", "-U"])
        #expect(addedByUpdate.status == 0)
        #expect(try await sandbox.keychain(["find-generic-password", "-a", "other", "-w"]).stdout == "third\n")
    }

    @Test func secretFromStandardInputLosesOneTrailingNewline() async throws {
        let sandbox = CLISandbox()
        let added = try await sandbox.keychain(
            ["add-generic-password", "-s", "stdin", "-a", "a", "-w", "-"], input: "line one\nline two\n\n")
        #expect(added.status == 0)
        let found = try await sandbox.keychain(["find-generic-password", "-s", "stdin", "-w"])
        // Stored "line one\nline two\n"; -w prints it followed by one newline.
        #expect(found.stdout == "line one\nline two\n\n")

        let plain = try await sandbox.keychain(["add-generic-password", "-s", "stdin", "-a", "b", "-w", "-"], input: "no-newline")
        #expect(plain.status == 0)
        #expect(try await sandbox.keychain(["find-generic-password", "-a", "b", "-w"]).stdout == "no-newline\n")
    }

    @Test func internetPasswordRoundTrip() async throws {
        let sandbox = CLISandbox()
        let added = try await sandbox.keychain([
            "add-internet-password", "-s", "example.com", "-a", "bob", "-r", "https", "-P", "443", "-p", "/login",
            "-w", "pa55", "-l", "Example",
        ])
        #expect(added.status == 0, "\(added.stderr)")

        let found = try await sandbox.keychain(["find-internet-password", "-s", "example.com", "-r", "https", "-P", "443"])
        #expect(found.status == 0)
        #expect(found.stdout.contains(#"class: "internetPassword""#))
        #expect(found.stdout.contains(#"    "server"<string>="example.com""#))
        #expect(found.stdout.contains(#"    "port"<integer>=443"#))
        #expect(found.stdout.contains(#"    "protocol"<string>="https""#))
        #expect(found.stdout.contains(#"    "path"<string>="/login""#))
        #expect(!found.stdout.contains("pa55"))

        #expect(try await sandbox.keychain(["find-internet-password", "-a", "bob", "-w"]).stdout == "pa55\n")
        #expect(try await sandbox.keychain(["find-internet-password", "-s", "example.com", "-P", "8443"]).status == 44)
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "example.com"]).status == 44)

        let duplicate = try await sandbox.keychain([
            "add-internet-password", "-s", "example.com", "-a", "bob", "-r", "https", "-P", "443", "-p", "/login",
            "-w", "other",
        ])
        #expect(duplicate.status == 45)

        #expect(try await sandbox.keychain(["delete-internet-password", "-s", "example.com", "-P", "443"]).status == 0)
        #expect(try await sandbox.keychain(["find-internet-password", "-s", "example.com"]).status == 44)
    }

    @Test func deleteRemovesEveryMatch() async throws {
        let sandbox = CLISandbox()
        for account in ["a", "b", "c"] { try await sandbox.addGeneric(service: "many", account: account, secret: "s") }
        try await sandbox.addGeneric(service: "kept", account: "a", secret: "s")
        let deleted = try await sandbox.keychain(["delete-generic-password", "-s", "many"])
        #expect(deleted.status == 0)
        #expect(deleted.stdout.contains("Deleted 3 generic passwords"))
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "many"]).status == 44)
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "kept"]).status == 0)
    }

    @Test func accessGroupsScopeWhatIsSeen() async throws {
        let sandbox = CLISandbox()
        let added = try await sandbox.keychain([
            "--access-group", "team", "--access-group", "default", "add-generic-password", "-s", "shared", "-a", "a",
            "-w", "s",
        ])
        #expect(added.status == 0)
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "shared"]).status == 44)
        let seen = try await sandbox.keychain(["--access-group", "team", "find-generic-password", "-s", "shared"])
        #expect(seen.status == 0)
        #expect(seen.stdout.contains(#""accessGroup"<string>="team""#))
    }

    @Test func defaultStorePathFollowsXDGThenHome() async throws {
        let sandbox = CLISandbox()
        let xdg = sandbox.directory.file("xdg")
        let viaXDG = try await sandbox.run(
            ["keychain", "add-generic-password", "-s", "x", "-a", "a", "-w", "s"], environment: ["XDG_DATA_HOME": xdg])
        #expect(viaXDG.status == 0, "\(viaXDG.stderr)")
        #expect(FileManager.default.fileExists(atPath: xdg + "/hardtack/keychain.db"))
        #expect(FileManager.default.fileExists(atPath: xdg + "/hardtack/keychain.db.key"))

        let viaHome = try await sandbox.run(["keychain", "add-generic-password", "-s", "h", "-a", "a", "-w", "s"])
        #expect(viaHome.status == 0, "\(viaHome.stderr)")
        let home = sandbox.directory.file("home/.local/share/hardtack")
        #expect(FileManager.default.fileExists(atPath: home + "/keychain.db"))
        #expect(FileManager.default.fileExists(atPath: home + "/keychain.db.key"))
        #expect(try await sandbox.run(["keychain", "find-generic-password", "-s", "x"]).status == 44)
    }
}
