import Foundation
import TestSupport
import Testing

/// Shell completion from the command tree, a failed write to standard output, add-internet-password's
/// optional attributes and known protocols, and help that matches behaviour.
@Suite struct BasicsTests {
    let sandbox = CLISandbox()

    /// What bash completes for `words` (the last one being typed), with the script hardtack prints.
    private func bashCompletes(_ words: [String]) async throws -> [String] {
        let executable = try #require(HardtackExecutable.path)
        let script = #"""
            source <("$0" completion bash) || exit 9
            COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _hardtack; printf '%s\n' "${COMPREPLY[@]}"
            """#
        let result = try await sandbox.runProcess("/bin/bash", ["-c", script, executable, "hardtack"] + words)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsVerbsAndOptionsFromTheTree() async throws {
        #expect(try await bashCompletes(["sig"]) == ["signin", "signout"])
        #expect(try await bashCompletes(["keychain", "add-i"]) == ["add-internet-password"])
        #expect(try await bashCompletes(["keychain", "verify", "--j"]) == ["--json"])
        #expect(try await bashCompletes(["status", "--ver"]) == ["--verbose"])
        #expect(try await bashCompletes(["completion", "--h"]) == ["--help"])
        // Hidden commands are not offered.
        #expect(try await !bashCompletes([""]).contains("help"))
    }

    @Test func zshScriptNamesEveryVerb() async throws {
        let result = try await sandbox.run(["completion", "zsh"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("#compdef hardtack"))
        for verb in ["add-generic-password", "find-internet-password", "dump", "verify", "change-passphrase"] {
            #expect(result.stdout.contains("'hardtack/keychain/\(verb)'"))
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") || FileManager.default.isExecutableFile(atPath: "/bin/zsh") {
            let path = sandbox.directory.file("_hardtack")
            try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try await sandbox.runProcess("/usr/bin/env", ["zsh", "-n", path]).status == 0)
        }
        #expect(try await sandbox.run(["completion", "fish"]).status == 2)
    }

    @Test func aFailedWriteToStandardOutputFails() async throws {
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "hidden")
        let executable = try #require(HardtackExecutable.path)
        let result = try await sandbox.runProcess(
            "/bin/sh",
            ["-c", #"exec "$0" keychain --store "$1" find-generic-password -s svc -w > /dev/full"#, executable, sandbox.store])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write to standard output"))
        #expect(!result.stderr.contains("hidden"))
    }

    @Test func internetPasswordsNeedNoAttributeAndKnowTheirProtocols() async throws {
        let add = try await sandbox.keychain(["add-internet-password", "-s", "example.com", "-r", "HTTPS", "-w", "x"])
        #expect(add.status == 0, "\(add.stderr)")
        let find = try await sandbox.keychain(["find-internet-password", "-s", "example.com", "-r", "https", "--json"])
        #expect(find.stdout.contains(#""protocol": "https""#), "\(find.stdout)")
        // macOS's four-character code stands for the same protocol.
        #expect(try await sandbox.keychain(["find-internet-password", "-s", "example.com", "-r", "htps", "-w"]).stdout == "x\n")
        let unknown = try await sandbox.keychain(["add-internet-password", "-s", "example.org", "-r", "gopher", "-w", "x"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("must be one of") && unknown.stderr.contains("https"))
        // Left out, the rest of the unique key counts as empty: the same add again is a duplicate.
        #expect(try await sandbox.keychain(["add-internet-password", "-s", "example.com", "-r", "https", "-w", "y"]).status == 45)
        // As with macOS `security`, every attribute is optional: no server is an empty server.
        #expect(try await sandbox.keychain(["add-internet-password", "-a", "a", "-w", "y"]).status == 0)
        #expect(try await sandbox.keychain(["find-internet-password", "-a", "a", "-s", "", "-w"]).stdout == "y\n")
    }

    @Test func helpSaysWhatReadingCommandsDo() async throws {
        for command in [["status"], ["keychain", "verify"], ["keychain", "find-generic-password"]] {
            let help = try await sandbox.run(command + ["--help"])
            #expect(!help.stdout.contains("Created on first use"), "\(command)")
            #expect(help.stdout.contains("only read never do"), "\(command)")
        }
        #expect(try await sandbox.run(["status", "--help"]).stdout.contains("never creates one"))
        #expect(try await sandbox.run(["keychain", "add-generic-password", "--help"]).stdout.contains("at a terminal it prompts"))
    }
}
