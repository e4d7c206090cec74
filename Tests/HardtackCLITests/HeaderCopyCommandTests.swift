import Foundation
import TestSupport
import Testing

/// The header's two copies as the commands see them: one copy's page destroyed is header damage that
/// `verify` names (65) while every item still reads and `salvage` brings all back; both destroyed
/// lose the key, and `salvage` writes nothing.
@Suite struct HeaderCopyCommandTests {
    /// The pages (1-based) holding a copy of the header record (its magic and format version, 2), in
    /// file order: `meta` first, `meta_copy` second (the tables are made in that order).
    private func headerPages(_ bytes: [UInt8]) -> [Int] {
        let magic: [UInt8] = [0x48, 0x54, 0x4B, 0x04]  // "HTK", format 4
        return stride(from: 0, to: bytes.count, by: 4096).compactMap { start in
            let page = bytes[start..<min(start + 4096, bytes.count)]
            let found = page.indices.dropLast(3).contains { page[$0..<($0 + 4)].elementsEqual(magic) }
            return found ? start / 4096 + 1 : nil
        }
    }

    private func destroy(_ pages: [Int], of path: String) throws {
        var bytes = FileBytes.read(path)
        for page in pages {
            for offset in ((page - 1) * 4096)..<(page * 4096) {
                bytes[offset] = UInt8(truncatingIfNeeded: offset &* 131 ^ 0x5A)
            }
        }
        try FileBytes.write(bytes, to: path)
    }

    @Test func oneDestroyedHeaderPageIsHeaderDamageAndEveryItemStillReads() async throws {
        let sandbox = CLISandbox()
        for index in 0..<5 {
            try await sandbox.addGeneric(service: "svc\(index)", account: "acct\(index)", secret: "HDR-\(index)")
        }
        let pages = headerPages(FileBytes.read(sandbox.store))
        try #require(pages.count == 2, "header copies on pages \(pages)")
        try destroy([pages[0]], of: sandbox.store)

        let find = try await sandbox.keychain(["find-generic-password", "-s", "svc3", "-a", "acct3", "-w"])
        #expect(find.status == 0, "\(find.stderr)")
        #expect(find.stdout == "HDR-3\n")
        let verify = try await sandbox.keychain(["verify"])
        #expect(verify.status == 65, "\(verify.stdout) \(verify.stderr)")
        #expect(verify.stdout.contains("sound items: 5"), "\(verify.stdout)")
        #expect(verify.stdout.contains("the store header (its first copy (table meta) cannot be read"), "\(verify.stdout)")
        #expect(verify.stdout.contains("its second copy (table meta_copy) is sound"), "\(verify.stdout)")
        let json = try await sandbox.keychain(["verify", "--json"])
        #expect(json.status == 65)
        #expect(json.stdout.contains("\"header\": true"), "\(json.stdout)")
        #expect(json.stdout.contains("\"headerProblem\": \"its first copy (table meta)"), "\(json.stdout)")

        let target = sandbox.directory.file("store/rescued.db")
        let salvage = try await sandbox.keychain(["salvage", "--to", target])
        #expect(salvage.status == 0, "\(salvage.stdout) \(salvage.stderr)")
        #expect(salvage.stdout.contains("recovered items: 5"), "\(salvage.stdout)")
    }

    @Test func bothHeaderPagesDestroyedLoseTheKeyAndSalvageWritesNothing() async throws {
        let sandbox = CLISandbox()
        for index in 0..<3 {
            try await sandbox.addGeneric(service: "svc\(index)", account: "acct\(index)", secret: "HDR-\(index)")
        }
        let pages = headerPages(FileBytes.read(sandbox.store))
        try #require(pages.count == 2, "header copies on pages \(pages)")
        try destroy(pages, of: sandbox.store)
        let before = FileBytes.read(sandbox.store)

        let target = sandbox.directory.file("store/rescued.db")
        let salvage = try await sandbox.keychain(["salvage", "--to", target])
        #expect(salvage.status == 65, "\(salvage.stdout) \(salvage.stderr)")
        #expect(salvage.stderr.contains("no copy of the store header"), "\(salvage.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target), "salvage wrote a store")
        #expect(FileBytes.read(sandbox.store) == before)
        let verify = try await sandbox.keychain(["verify"])
        #expect(verify.status == 65, "\(verify.stdout) \(verify.stderr)")
    }
}
