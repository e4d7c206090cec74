import Foundation
import TestSupport
import Testing

/// A damaged store as the app commands and `verify` report it: damage (65), never "signed out" or
/// "unavailable", pointing at salvage; an emptied store file is said to be empty and never replaced.
@Suite struct DamagedStoreCommandTests {
    /// A store of 30 items whose next-to-last page (a leaf of the items table; the middle one holds the
    /// header's second copy, whose damage the first copy covers) is scrambled: it opens, but reading a
    /// session through it (an absence is a claim about every row) meets the damaged page.
    private func damagedStore() async throws -> CLISandbox {
        let sandbox = CLISandbox()
        let comment = String(repeating: "c", count: 300)
        for index in 0..<30 {
            try await sandbox.addGeneric(service: "svc\(index)", account: "a", secret: "secret-\(index)", extra: ["-j", comment])
        }
        var bytes = FileBytes.read(sandbox.store)
        let pageSize = 4096
        let middle = (bytes.count / pageSize - 2) * pageSize
        #expect(bytes[middle] == 0x0D, "not a table leaf page")
        for offset in middle..<(middle + pageSize) { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 131 &+ 7) }
        try FileBytes.write(bytes, to: sandbox.store)
        return sandbox
    }

    @Test func appCommandsSayTheStoreIsDamagedAndPointAtSalvage() async throws {
        let sandbox = try await damagedStore()
        let status = try await sandbox.run(["status", "--store", sandbox.store])
        #expect(status.status == 65, "\(status.stdout) \(status.stderr)")
        #expect(status.stdout.contains("store damaged"), "\(status.stdout)")
        #expect(status.stderr.contains("hardtack keychain salvage --to NEW"), "\(status.stderr)")
        #expect(!status.stdout.contains("unlock or retry"))
        let json = try await sandbox.run(["status", "--json", "--store", sandbox.store])
        #expect(json.status == 65)
        #expect(json.stdout.contains("\"decision\": \"storeDamaged\"") || json.stdout.contains("\"decision\":\"storeDamaged\""), "\(json.stdout)")
        // No server is needed to find the store damaged: the port is closed.
        for command in ["me", "refresh", "signout"] {
            let result = try await sandbox.run([command, "--server", "http://127.0.0.1:9", "--store", sandbox.store])
            #expect(result.status == 65, "\(command): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("salvage"), "\(command): \(result.stderr)")
        }
    }

    @Test func anEmptiedStoreIsSaidToBeEmptyAndNeverReplaced() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "first")
        #expect(truncate(sandbox.store, 0) == 0)
        let verify = try await sandbox.keychain(["verify"])
        #expect(verify.status == 65)
        #expect(verify.stdout.contains("damage: the store file is empty"), "\(verify.stdout)")
        let json = try await sandbox.keychain(["verify", "--json"])
        #expect(json.status == 65)
        #expect(json.stdout.contains("the store file is empty"), "\(json.stdout)")
        let add = try await sandbox.keychain(["add-generic-password", "-s", "svc", "-a", "b", "-w", "second"])
        #expect(add.status == 65, "\(add.stderr)")
        #expect(FileBytes.read(sandbox.store).isEmpty, "a store was made over the emptied file")
        let status = try await sandbox.run(["status", "--store", sandbox.store])
        #expect(status.status == 65, "\(status.stdout) \(status.stderr)")
    }

    @Test func aStoreCutShortIsSaidToBeCutShort() async throws {
        let sandbox = CLISandbox()
        let comment = String(repeating: "c", count: 300)
        for index in 0..<30 {
            try await sandbox.addGeneric(service: "svc\(index)", account: "a", secret: "secret-\(index)", extra: ["-j", comment])
        }
        let bytes = FileBytes.read(sandbox.store)
        try FileBytes.write(Array(bytes[0..<(2 * 4096)]), to: sandbox.store)
        let verify = try await sandbox.keychain(["verify"])
        #expect(verify.status == 65)
        #expect(verify.stdout.contains("the store file is cut short (2 of its"), "\(verify.stdout)")
    }
}
