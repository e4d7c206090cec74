import Foundation
import TestSupport
import Testing

/// Where the store is and which key opens it: symlinked homes, verbs that must not create a store,
/// and command-line key options winning over the environment.
@Suite struct StoreLocationTests {
    let sandbox = CLISandbox()

    @Test func aSymlinkedHomeStillGetsAPrivateDefaultStore() async throws {
        let realHome = sandbox.directory.file("real-home")
        #expect(mkdir(realHome, 0o700) == 0)
        let linkedHome = sandbox.directory.file("linked-home")
        try FileManager.default.createSymbolicLink(atPath: linkedHome, withDestinationPath: realHome)
        let add = try await sandbox.run(
            ["keychain", "add-generic-password", "-s", "svc", "-a", "acct", "-w", "value"], environment: ["HOME": linkedHome])
        #expect(add.status == 0, "\(add.stderr)")
        let store = realHome + "/.local/share/hardtack/keychain.db"
        #expect(try sandbox.mode(store) == 0o600)
        #expect(try sandbox.mode(realHome + "/.local/share/hardtack") == 0o700)
        let find = try await sandbox.run(
            ["keychain", "find-generic-password", "-s", "svc", "-w"], environment: ["HOME": linkedHome])
        #expect(find.stdout == "value\n")
    }

    @Test(arguments: [
        ["find-generic-password", "-s", "svc"], ["delete-generic-password", "-s", "svc"], ["verify"],
        ["find-internet-password", "-s", "example.com"],
    ])
    func verbsThatOnlyReadOrRemoveNeverCreateAStore(_ arguments: [String]) async throws {
        let result = try await sandbox.keychain(arguments)
        #expect(result.status == 44, "\(result.stderr)")
        #expect(result.stderr.contains("no store"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
    }

    @Test func anEmptyDumpCreatesNothing() async throws {
        let result = try await sandbox.keychain(["dump"])
        #expect(result.status == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }

    @Test func aKeyFileOnTheCommandLineWinsOverThePassphraseVariable() async throws {
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "s")
        let result = try await sandbox.keychain(
            ["--key-file", sandbox.keyFile, "find-generic-password", "-s", "svc", "-w"],
            environment: ["HARDTACK_PASSPHRASE": "something else"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "s\n")
    }
}
