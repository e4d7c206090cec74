import Foundation
import TestSupport
import Testing

/// `verify`, and damaged files exiting 65.
@Suite struct DamageTests {
    @Test func verifyReportsASoundStore() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "one", account: "a", secret: "s")
        try await sandbox.addGeneric(service: "two", account: "a", secret: "s")
        let result = try await sandbox.keychain(["verify"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("sound items: 2"))
        #expect(result.stdout.contains("damaged items: 0"))
        #expect(result.stdout.contains("database check: ok"))
    }

    @Test func aDamagedFileExits65() async throws {
        let sandbox = CLISandbox()
        let comment = String(repeating: "c", count: 300)
        for index in 0..<30 {
            try await sandbox.addGeneric(service: "svc\(index)", account: "a", secret: "secret-\(index)", extra: ["-j", comment])
        }
        #expect(try await sandbox.keychain(["verify"]).status == 0)
        // Each run closes the store, which checkpoints the write-ahead log into the main file.
        #expect(!FileManager.default.fileExists(atPath: sandbox.store + "-wal"))

        var bytes = FileBytes.read(sandbox.store)
        let pageSize = 4096
        let pages = bytes.count / pageSize
        #expect(pages >= 4)
        let middle = (pages / 2) * pageSize
        for offset in middle..<(middle + pageSize) { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 131 &+ 7) }
        try FileBytes.write(bytes, to: sandbox.store)

        let result = try await sandbox.keychain(["verify"])
        #expect(result.status == 65, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.hasPrefix("hardtack: "))
        #expect(result.stderr.contains("damaged"))
        #expect(!result.stdout.contains("secret-"))
        #expect(!result.stderr.contains("secret-"))
    }
}
