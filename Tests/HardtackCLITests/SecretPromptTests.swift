import Foundation
import Testing

/// `add-*-password -w -` and `-w` with no value, at a terminal: a prompt, echo off, the secret typed
/// twice; nothing typed is ever shown.
@Suite struct SecretPromptTests {
    let sandbox = CLISandbox()

    @Test(arguments: [["-w", "-"], ["-w"]])
    func aSecretTypedAtATerminalIsPromptedForAndNeverEchoed(_ secretOption: [String]) async throws {
        let terminal = try PseudoTerminal(
            sandbox, ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "svc", "-a", "a"] + secretOption)
        #expect(await terminal.waitFor("Secret for the new generic password: "), "\(terminal.transcript)")
        terminal.type("typed-secret-1")
        #expect(await terminal.waitFor("Type it again: "), "\(terminal.transcript)")
        terminal.type("typed-secret-1")
        #expect(await terminal.finish() == 0, "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("typed-secret"))
        let find = try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"])
        #expect(find.stdout == "typed-secret-1\n")
    }

    @Test func twoDifferentEntriesAddNothing() async throws {
        try await sandbox.addGeneric(service: "other", account: "a", secret: "s")
        let terminal = try PseudoTerminal(
            sandbox, ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "svc", "-a", "a", "-w"])
        #expect(await terminal.waitFor("Secret for the new generic password: "), "\(terminal.transcript)")
        terminal.type("first-entry")
        #expect(await terminal.waitFor("Type it again: "), "\(terminal.transcript)")
        terminal.type("second-entry")
        #expect(await terminal.finish() == 1)
        #expect(terminal.transcript.contains("differ"))
        #expect(!terminal.transcript.contains("-entry"))
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "svc"]).status == 44)
    }

    @Test func withoutATerminalTheLastDashWReadsStandardInput() async throws {
        let add = try await sandbox.keychain(
            ["add-internet-password", "-s", "example.com", "-a", "a", "-r", "https", "-P", "443", "-p", "/", "-w"],
            input: "piped\n")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try await sandbox.keychain(["find-internet-password", "-s", "example.com", "-w"]).stdout == "piped\n")
        // In the middle of the line, -w still takes the next argument as its value.
        let middle = try await sandbox.keychain(["add-generic-password", "-w", "literal", "-s", "x", "-a", "a"])
        #expect(middle.status == 0, "\(middle.stderr)")
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "x", "-w"]).stdout == "literal\n")
    }

    /// Ctrl-C (or SIGTERM, SIGHUP, Ctrl-\) at the prompt, with echo off: the terminal's echo is back
    /// when the process has ended, the process ended by that signal, and nothing was stored.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    func aSignalAtThePromptLeavesEchoOn(_ signal: Int32) async throws {
        let terminal = try PseudoTerminal(
            sandbox, ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "svc", "-a", "a", "-w"])
        #expect(terminal.echoes)
        #expect(await terminal.waitFor("Secret for the new generic password: "), "\(terminal.transcript)")
        #expect(!terminal.echoes)
        terminal.send(signal)
        _ = await terminal.finish()
        #expect(terminal.endedBySignal == signal, "\(terminal.transcript)")
        #expect(terminal.echoes, "the terminal was left with echo off")
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "svc"]).status == 44)
    }

    /// A store protected by a passphrase, used at a terminal with no passphrase given: hardtack asks for
    /// it (echo off) instead of failing; a wrong one is a wrong key (77), and nothing typed is shown.
    @Test func aStoresPassphraseIsAskedForAtATerminal() async throws {
        let passphrase = "correct-horse-battery"
        try await sandbox.addGeneric(
            service: "svc", account: "a", secret: "kept-secret", environment: CLISandbox.passphrase(passphrase))
        let arguments = ["keychain", "--store", sandbox.store, "find-generic-password", "-s", "svc", "-w"]
        let terminal = try PseudoTerminal(sandbox, arguments, environment: ["HARDTACK_ARGON2_COST": "interactive"])
        #expect(await terminal.waitFor("Passphrase for \(sandbox.store): "), "\(terminal.transcript)")
        #expect(!terminal.echoes)
        terminal.type(passphrase)
        #expect(await terminal.finish() == 0, "\(terminal.transcript)")
        #expect(terminal.transcript.contains("kept-secret"))
        #expect(!terminal.transcript.contains(passphrase))
        #expect(terminal.echoes)

        let wrong = try PseudoTerminal(sandbox, arguments, environment: ["HARDTACK_ARGON2_COST": "interactive"])
        #expect(await wrong.waitFor("Passphrase for \(sandbox.store): "), "\(wrong.transcript)")
        wrong.type("not-the-passphrase")
        #expect(await wrong.finish() == 77, "\(wrong.transcript)")
        #expect(!wrong.transcript.contains("kept-secret") && !wrong.transcript.contains("not-the-passphrase"))
    }

    /// `change-passphrase` at a terminal with no new passphrase given asks for it twice (echo off); the
    /// store then opens with it, and says it was wrapped at the test cost the tests ask for.
    @Test func aNewPassphraseIsAskedForTwiceAtATerminal() async throws {
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "kept-secret")
        let terminal = try PseudoTerminal(
            sandbox, ["keychain", "--store", sandbox.store, "change-passphrase"],
            environment: ["HARDTACK_ARGON2_COST": "interactive"])
        #expect(await terminal.waitFor("New passphrase: "), "\(terminal.transcript)")
        terminal.type("a-new-passphrase")
        #expect(await terminal.waitFor("Type it again: "), "\(terminal.transcript)")
        terminal.type("a-new-passphrase")
        #expect(await terminal.finish() == 0, "\(terminal.transcript)")
        #expect(terminal.transcript.contains("The store is now protected by a passphrase"))
        #expect(terminal.transcript.contains("warning: HARDTACK_ARGON2_COST=interactive"))
        #expect(!terminal.transcript.contains("a-new-passphrase"))
        let find = try await sandbox.keychain(
            ["find-generic-password", "-s", "svc", "-w"], environment: CLISandbox.passphrase("a-new-passphrase"))
        #expect(find.stdout == "kept-secret\n", "\(find.stderr)")

        let differ = try PseudoTerminal(sandbox, ["keychain", "--store", sandbox.store, "change-passphrase"],
            environment: CLISandbox.passphrase("a-new-passphrase"))
        #expect(await differ.waitFor("New passphrase: "), "\(differ.transcript)")
        differ.type("first")
        #expect(await differ.waitFor("Type it again: "), "\(differ.transcript)")
        differ.type("second")
        #expect(await differ.finish() == 1)
        #expect(differ.transcript.contains("differ; nothing changed"))
    }

    /// A store made with a passphrase under the test cost says so once; made at the real cost, nothing.
    @Test func aStoreMadeAtTheTestCostSaysSo() async throws {
        let cheap = try await sandbox.keychain(
            ["add-generic-password", "-s", "svc", "-a", "a", "-w", "s"], environment: CLISandbox.passphrase("pw-one"))
        #expect(cheap.status == 0 && cheap.stderr.contains("warning: HARDTACK_ARGON2_COST=interactive"), "\(cheap.stderr)")
        let again = try await sandbox.keychain(
            ["add-generic-password", "-s", "svc2", "-a", "a", "-w", "s"], environment: CLISandbox.passphrase("pw-one"))
        #expect(again.status == 0 && again.stderr.isEmpty, "an existing store says nothing: \(again.stderr)")
        let other = CLISandbox()
        let real = try await other.keychain(
            ["add-generic-password", "-s", "svc", "-a", "a", "-w", "s"], environment: ["HARDTACK_PASSPHRASE": "pw-two"])
        #expect(real.status == 0 && real.stderr.isEmpty, "\(real.stderr)")
    }
}
