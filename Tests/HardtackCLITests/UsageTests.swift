import Foundation
import Testing

/// Help text and command-line mistakes: exit 0 for help, 2 for usage errors, never a store created
/// and never a value echoed.
@Suite struct UsageTests {
    static let verbs = [
        "add-generic-password", "find-generic-password", "delete-generic-password", "add-internet-password",
        "find-internet-password", "delete-internet-password", "dump", "verify", "change-passphrase", "rotate-key",
    ]

    @Test func topLevelHelpListsCommands() async throws {
        let sandbox = CLISandbox()
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try await sandbox.run(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stdout.contains("usage: hardtack [COMMAND"))
            for command in ["keychain", "demo", "signin", "status", "me", "refresh", "signout", "migrate-legacy", "serve"] {
                #expect(result.stdout.contains("\n  \(command) "), "\(command)")
            }
            #expect(result.stderr.isEmpty)
        }
    }

    @Test func keychainHelpListsEveryVerbAndTheGlobalOptions() async throws {
        let result = try await CLISandbox().run(["keychain", "--help"])
        #expect(result.status == 0)
        for verb in Self.verbs { #expect(result.stdout.contains("  \(verb)"), "\(verb)") }
        for option in ["--store PATH", "--key-file PATH", "--passphrase-file PATH", "--key-env VAR",
            "--key-credential NAME", "--access-group GROUP", "HARDTACK_PASSPHRASE", "HARDTACK_ARGON2_COST"]
        {
            #expect(result.stdout.contains(option), "\(option)")
        }
    }

    @Test(arguments: verbs) func everyVerbHasHelp(verb: String) async throws {
        let result = try await CLISandbox().run(["keychain", verb, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: hardtack keychain \(verb)"))
        #expect(result.stdout.contains("--store PATH"))
    }

    @Test func addHelpWarnsThatACommandLineSecretIsVisible() async throws {
        let sandbox = CLISandbox()
        for verb in ["add-generic-password", "add-internet-password"] {
            let help = try await sandbox.run(["keychain", verb, "--help"]).stdout
            #expect(help.contains("-w SECRET"))
            #expect(help.contains("ps"))
            #expect(help.contains("-w -"))
        }
        let internet = try await sandbox.run(["keychain", "add-internet-password", "--help"]).stdout
        for option in ["-s SERVER", "-a ACCOUNT", "-r PROTOCOL", "-P PORT", "-p PATH", "-l LABEL", "-j COMMENT", "-U"] {
            #expect(internet.contains(option), "\(option)")
        }
    }

    @Test(arguments: [
        ["bogus"],
        ["keychain", "no-such-verb"],
        ["keychain", "--bogus", "dump"],
        ["keychain", "find-generic-password", "-x", "1"],
        ["keychain", "find-generic-password", "-s"],
        ["keychain", "find-generic-password", "-s", "a", "-s", "b"],
        ["keychain", "find-generic-password", "stray"],
        ["keychain", "add-generic-password", "-s", "a", "-a", "b"],
        ["keychain", "add-generic-password", "-a", "b", "-w", "s"],
        ["keychain", "delete-generic-password"],
        ["keychain", "add-internet-password", "-s", "h", "-a", "b", "-r", "https", "-P", "http", "-p", "/", "-w", "s"],
        ["keychain", "add-internet-password", "-s", "h", "-a", "b", "-r", "https", "-P", "70000", "-p", "/", "-w", "s"],
        ["keychain", "find-internet-password", "-P", "-1"],
        ["keychain", "dump", "--json=yes"],
        ["keychain", "change-passphrase"],
        ["keychain", "verify", "--store"],
    ])
    func usageErrorsExit2WithoutTouchingTheStore(arguments: [String]) async throws {
        let sandbox = CLISandbox()
        let store = sandbox.directory.file("store/keychain.db")
        let result = try await sandbox.run(arguments.count > 1 ? [arguments[0], "--store", store] + arguments.dropFirst() : arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("hardtack: "))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.file("store")))
    }

    @Test func aMisplacedSecretIsNeverEchoed() async throws {
        let sandbox = CLISandbox()
        for arguments in [
            ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "a", "-a", "b", "Tr0ub4dor-3"],
            ["keychain", "Tr0ub4dor&3"],
        ] {
            let result = try await sandbox.run(arguments)
            #expect(result.status == 2)
            #expect(!result.stderr.contains("Tr0ub4dor"), "\(result.stderr)")
        }
    }
}
