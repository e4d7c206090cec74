import Foundation
import TestSupport
import Testing

/// `hardtack keychain export` and `import` on a store file: where an export may be written, and the
/// progress both print.
struct ExportCommandTests {
    private static let environment = ["HARDTACK_ARGON2_COST": "interactive"]

    @Test func anExistingFileIsReplacedOnlyWithOverwrite() throws {
        let sandbox = CLISandbox()
        try sandbox.addGeneric(service: "api", account: "alice", secret: "a-secret")
        let passphrase = try sandbox.privateFile("export.txt", "export passphrase\n")
        let file = try sandbox.privateFile("backup.htk", "keep me\n")
        let export = ["export", "--to", file, "--export-passphrase-file", passphrase]
        let refused = try sandbox.keychain(export, environment: Self.environment)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("already exists") && refused.stderr.contains("--overwrite"))
        #expect(FileBytes.read(file) == Array("keep me\n".utf8), "a refused export must leave the file as it was")
        let replaced = try sandbox.keychain(export + ["--overwrite"], environment: Self.environment)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(FileBytes.read(file) != Array("keep me\n".utf8))
        let imported = try sandbox.run(
            ["keychain", "--store", sandbox.directory.file("copy.db"), "import", "--from", file,
             "--export-passphrase-file", passphrase], environment: Self.environment)
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    @Test func theStoreItsJournalsAndKeyFilesAreNeverReplaced() throws {
        let sandbox = CLISandbox()
        try sandbox.addGeneric(service: "api", account: "alice", secret: "a-secret")
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
                let result = try sandbox.keychain(
                    ["export", "--to", target, "--export-passphrase-file", passphrase] + extra, environment: Self.environment)
                #expect(result.status == 2, "\(target) \(extra): \(result.stderr)")
                #expect(result.stderr.contains("which this command reads"), "\(target): \(result.stderr)")
            }
            #expect([sandbox.store, sandbox.keyFile, passphrase].map { FileBytes.read($0) } == before, "\(target)")
        }
        let find = try sandbox.keychain(["find-generic-password", "-s", "api", "-w"])
        #expect(find.stdout == "a-secret\n", "\(find.stderr)")
    }
}
