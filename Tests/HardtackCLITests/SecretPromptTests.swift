import Foundation
import Testing

/// `add-*-password -w -` and `-w` with no value, at a terminal: a prompt, echo off, the secret typed
/// twice; nothing typed is ever shown.
@Suite struct SecretPromptTests {
    let sandbox = CLISandbox()

    @Test(arguments: [["-w", "-"], ["-w"]])
    func aSecretTypedAtATerminalIsPromptedForAndNeverEchoed(_ secretOption: [String]) throws {
        let terminal = try PseudoTerminal(
            sandbox, ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "svc", "-a", "a"] + secretOption)
        #expect(terminal.waitFor("Secret for the new generic password: "))
        terminal.type("typed-secret-1")
        #expect(terminal.waitFor("Type it again: "))
        terminal.type("typed-secret-1")
        #expect(terminal.finish() == 0, "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("typed-secret"))
        let find = try sandbox.keychain(["find-generic-password", "-s", "svc", "-w"])
        #expect(find.stdout == "typed-secret-1\n")
    }

    @Test func twoDifferentEntriesAddNothing() throws {
        try sandbox.addGeneric(service: "other", account: "a", secret: "s")
        let terminal = try PseudoTerminal(
            sandbox, ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "svc", "-a", "a", "-w"])
        #expect(terminal.waitFor("Secret for the new generic password: "))
        terminal.type("first-entry")
        #expect(terminal.waitFor("Type it again: "))
        terminal.type("second-entry")
        #expect(terminal.finish() == 1)
        #expect(terminal.transcript.contains("differ"))
        #expect(!terminal.transcript.contains("-entry"))
        #expect(try sandbox.keychain(["find-generic-password", "-s", "svc"]).status == 44)
    }

    @Test func withoutATerminalTheLastDashWReadsStandardInput() throws {
        let add = try sandbox.keychain(
            ["add-internet-password", "-s", "example.com", "-a", "a", "-r", "https", "-P", "443", "-p", "/", "-w"],
            input: "piped\n")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try sandbox.keychain(["find-internet-password", "-s", "example.com", "-w"]).stdout == "piped\n")
        // In the middle of the line, -w still takes the next argument as its value.
        let middle = try sandbox.keychain(["add-generic-password", "-w", "literal", "-s", "x", "-a", "a"])
        #expect(middle.status == 0, "\(middle.stderr)")
        #expect(try sandbox.keychain(["find-generic-password", "-s", "x", "-w"]).stdout == "literal\n")
    }

    /// Ctrl-C (or SIGTERM, SIGHUP, Ctrl-\) at the prompt, with echo off: the terminal's echo is back
    /// when the process has ended, the process ended by that signal, and nothing was stored.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    func aSignalAtThePromptLeavesEchoOn(_ signal: Int32) throws {
        let terminal = try PseudoTerminal(
            sandbox, ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "svc", "-a", "a", "-w"])
        #expect(terminal.echoes)
        #expect(terminal.waitFor("Secret for the new generic password: "))
        #expect(!terminal.echoes)
        terminal.send(signal)
        _ = terminal.finish()
        #expect(terminal.endedBySignal == signal, "\(terminal.transcript)")
        #expect(terminal.echoes, "the terminal was left with echo off")
        #expect(try sandbox.keychain(["find-generic-password", "-s", "svc"]).status == 44)
    }
}
