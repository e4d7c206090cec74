import Foundation
import Testing

/// What the command framework adds at the process level: the version, the exit-status table the README
/// copies, `help COMMAND`, and arguments that are not UTF-8 refused before anything runs.
@Suite struct CommandLineTests {
    @Test func versionPrintsTheProgramAndItsVersion() async throws {
        let result = try await CLISandbox().run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.wholeMatch(of: /hardtack \d+\.\d+\.\d+\n/) != nil, "\(result.stdout)")
        #expect(result.stderr.isEmpty)
    }

    @Test func theReadmeHoldsTheGeneratedExitStatusTable() async throws {
        let result = try await CLISandbox().run(["help", "exit-codes"])
        #expect(result.status == 0)
        let table = result.stdout.trimmingCharacters(in: .newlines)
        #expect(table.hasPrefix("| status | meaning |\n|---|---|\n| 0 | success |"))
        for status in ["1", "2", "3", "4", "44", "45", "65", "69", "75", "76", "77"] {
            #expect(table.contains("\n| \(status) | "), "\(status)")
        }
        // The README, or the docs/ page its CLI section may move to, holds this exact table.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var documents = [root.appendingPathComponent("README.md")]
        let docs = root.appendingPathComponent("docs")
        if let enumerator = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil) {
            documents += enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "md" }
        }
        let texts = documents.compactMap { try? String(contentsOf: $0, encoding: .utf8) }
        #expect(texts.contains { $0.contains("\n" + table + "\n") }, "no document holds:\n\(table)")
    }

    @Test func helpNamesACommandOrFallsBackToTheTopLevel() async throws {
        let sandbox = CLISandbox()
        let keychain = try await sandbox.run(["help", "keychain", "dump"])
        #expect(keychain.status == 0)
        #expect(keychain.stdout.hasPrefix("usage: hardtack keychain dump"))
        let unknown = try await sandbox.run(["help", "no-such-command"])
        #expect(unknown.status == 0)
        #expect(unknown.stdout.hasPrefix("usage: hardtack [COMMAND"))
    }

    @Test func anArgumentThatIsNotUTF8IsRefusedNotRepaired() async throws {
        let sandbox = CLISandbox()
        let executable = try #require(HardtackExecutable.path)
        // A secret ending in the byte 0xFF: repaired to U+FFFD, it would be stored changed.
        let script = #"exec "$0" keychain --store "$1" add-generic-password -s a -a b -w "$(printf 'x\377')""#
        let result = try await sandbox.runProcess("/bin/sh", ["-c", script, executable, sandbox.store])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "hardtack: argument 10 is not valid UTF-8; it is refused rather than changed. See `hardtack --help`.\n")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.file("store")))
    }
}
