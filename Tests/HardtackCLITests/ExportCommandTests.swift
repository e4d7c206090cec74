import Foundation
import TestSupport
import Testing

/// `hardtack keychain export` and `import` on a store file: where an export may be written, and the
/// progress both print.
struct ExportCommandTests {
    private static let environment = ["HARDTACK_ARGON2_COST": "interactive"]
    /// What an export under that environment says about its passphrase.
    static let testCostWarning =
        "hardtack: warning: HARDTACK_ARGON2_COST=interactive: this passphrase is protected at Argon2id's test cost "
        + "(2 passes, 64 MiB: about 6 times cheaper to guess than the default); for a real store, unset it and "
        + "change the passphrase"

    @Test func anExistingFileIsReplacedOnlyWithOverwrite() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "api", account: "alice", secret: "a-secret")
        let passphrase = try sandbox.privateFile("export.txt", "export passphrase\n")
        let file = try sandbox.privateFile("backup.htk", "keep me\n")
        let export = ["export", "--to", file, "--export-passphrase-file", passphrase]
        let refused = try await sandbox.keychain(export, environment: Self.environment)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("already exists") && refused.stderr.contains("--overwrite"))
        #expect(FileBytes.read(file) == Array("keep me\n".utf8), "a refused export must leave the file as it was")
        let replaced = try await sandbox.keychain(export + ["--overwrite"], environment: Self.environment)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(FileBytes.read(file) != Array("keep me\n".utf8))
        let imported = try await sandbox.run(
            ["keychain", "--store", sandbox.directory.file("copy.db"), "import", "--from", file,
             "--export-passphrase-file", passphrase], environment: Self.environment)
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    @Test func theStoreItsJournalsAndKeyFilesAreNeverReplaced() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "api", account: "alice", secret: "a-secret")
        let passphrase = try sandbox.privateFile("export.txt", "export passphrase\n")
        // A link to the store in another directory names it too.
        let link = sandbox.directory.file("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sandbox.store)
        let targets = [
            sandbox.store, sandbox.store + "-wal", sandbox.store + "-shm", sandbox.keyFile, passphrase, link,
            sandbox.directory.file("store/../store/keychain.db"),
        ]
        for target in targets {
            let before = [sandbox.store, sandbox.keyFile, passphrase].map { FileBytes.read($0) }
            for extra in [[], ["--overwrite"]] {
                let result = try await sandbox.keychain(
                    ["export", "--to", target, "--export-passphrase-file", passphrase] + extra, environment: Self.environment)
                #expect(result.status == 2, "\(target) \(extra): \(result.stderr)")
                #expect(result.stderr.contains("which this command reads"), "\(target): \(result.stderr)")
            }
            #expect([sandbox.store, sandbox.keyFile, passphrase].map { FileBytes.read($0) } == before, "\(target)")
        }
        let find = try await sandbox.keychain(["find-generic-password", "-s", "api", "-w"])
        #expect(find.stdout == "a-secret\n", "\(find.stderr)")
    }

    @Test func exportAndImportPrintAProgressLinePerTenthForManyItems() async throws {
        let sandbox = CLISandbox()
        let executable = try #require(HardtackExecutable.path)
        let count = 100
        let script = "i=0; while [ $i -lt \(count) ]; do \"$0\" keychain --store \"$1\" add-generic-password -s s$i "
            + "-a a -w x$i || exit 1; i=$((i+1)); done"
        let added = try await sandbox.runProcess("/bin/sh", ["-c", script, executable, sandbox.store])
        #expect(added.status == 0, "\(added.stderr)")
        let passphrase = try sandbox.privateFile("export.txt", "export passphrase\n")
        let file = sandbox.directory.file("many.htk")
        let export = try await sandbox.keychain(
            ["export", "--to", file, "--export-passphrase-file", passphrase], environment: Self.environment)
        #expect(export.status == 0, "\(export.stderr)")
        let lines = export.stderr.split(separator: "\n").map(String.init)
        let readLines = lines.filter { $0.contains("items read and decrypted") }
        let writtenLines = lines.filter { $0.contains("items written to the file") }
        #expect(readLines.count == 10 && writtenLines.count == 10, "\(export.stderr)")
        #expect(readLines.first == "hardtack: export: 10 of 100 items read and decrypted (10%)")
        #expect(readLines.last == "hardtack: export: 100 of 100 items read and decrypted (100%)")
        // Reading comes first: its lines are printed while the items are decrypted, before the file.
        #expect(lines.firstIndex(of: readLines.last ?? "") ?? 99 < lines.firstIndex(of: writtenLines.first ?? "") ?? -1)
        let imported = try await sandbox.run(
            ["keychain", "--store", sandbox.directory.file("copy.db"), "import", "--from", file,
             "--export-passphrase-file", passphrase], environment: Self.environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let importLines = imported.stderr.split(separator: "\n").filter { $0.hasPrefix("hardtack: import: ") }
        #expect(importLines.count == 10, "\(imported.stderr)")
        #expect(importLines.last == "hardtack: import: 100 of 100 items imported (100%)")
        // A small store prints nothing on stderr.
        let small = CLISandbox()
        try await small.addGeneric(service: "api", account: "alice", secret: "a-secret")
        let smallFile = small.directory.file("small.htk")
        let quiet = try await small.keychain(
            ["export", "--to", smallFile, "--export-passphrase-file", passphrase], environment: Self.environment)
        // Only the line that says the export passphrase is at the test cost (which the tests ask for).
        #expect(quiet.status == 0 && quiet.stderr.split(separator: "\n").map(String.init) == [Self.testCostWarning], "\(quiet.stderr)")
        let quietImport = try await small.run(
            ["keychain", "--store", small.directory.file("copy.db"), "import", "--from", smallFile,
             "--export-passphrase-file", passphrase], environment: Self.environment)
        #expect(quietImport.status == 0 && quietImport.stderr.isEmpty, "\(quietImport.stderr)")
    }
}
