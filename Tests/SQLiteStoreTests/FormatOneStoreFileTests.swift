import Data
import Domain
import Foundation
import RawSQLite
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// A store file written by the Hardtack of format 1 (commit 6fcef4f, with its command line: three
/// items in group `default`, one in `team`), kept in `Fixtures/`: this build opens it, reads every
/// item as it was written, and writes format-1 rows into it, so that build can still open it.
@Suite struct FormatOneStoreFileTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("format1.db") }
    var keyFile: String { directory.file("format1.db.key") }

    /// Copies the fixture into the temporary directory, owner-only as the store wants its files.
    private func copyFixture() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        for (name, target) in [("format1.db", path), ("format1.db.key", keyFile)] {
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(name).path, toPath: target)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
        }
    }

    private func open() throws(SecureStoreError) -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: keyFile), accessGroups: ["default", "team"],
            options: StoreOptions(passphraseCost: .interactive))
    }

    @Test func aStoreOfFormatOneReadsWholeAndKeepsItsFormat() throws {
        try copyFixture()
        // A raw connection goes through the store's checksum VFS, which the store registers when this process
        // first opens one: opened here, as this test may be the process's first (it once was, and failed).
        _ = try SQLiteSecureItemStore.open(
            at: directory.file("registers-the-vfs.db"), keySource: .key(secret(String(repeating: "k", count: 32))))
        #expect(try RawDatabase(path: path).blob("SELECT header FROM meta WHERE id = 1")[3] == 1)
        do {
            let store = try open()
            let alice = try #require(
                try store.find(.genericPassword(service: "com.example.api", account: "alice@example.com"), limit: .one,
                    returning: .all).first)
            #expect(alice.text == "FORMAT1-ALICE-SECRET")
            #expect(alice.attributes?.string(.label) == "API token")
            #expect(alice.attributes?.string(.accessGroup) == "default")
            #expect(try store.findString(.genericPassword(service: "com.example.api", account: "bob@example.com")) == "FORMAT1-BOB-SECRET")
            let carol = try store.find(.internetPassword(server: "mail.example.com"), limit: .one, returning: .all).first
            #expect(carol?.text == "FORMAT1-CAROL-SECRET")
            #expect(carol?.attributes?[.port] == .integer(993))
            #expect(try store.find(.genericPassword(service: "shared"), limit: .one, returning: .data).first?.text == "FORMAT1-DAVE-SECRET")
            #expect(try store.find(.genericPassword(), limit: .all, returning: .attributes).count == 3)
            // Writes of every kind keep format-1 rows.
            #expect(try store.update(.genericPassword(service: "com.example.api", account: "bob@example.com"), attributes: nil, data: secret("NEW-BOB")) == 1)
            try store.add(.genericPassword(service: "com.example.api", account: "erin@example.com"), data: secret("ERIN"))
            #expect(try store.delete(.genericPassword(service: "shared")) == 1)
            #expect(try store.verify().isSound)
        }
        let raw = try RawDatabase(path: path)
        let rows = try raw.query("SELECT id, length(attrs) FROM items ORDER BY id")
        #expect(rows.count == 4)
        #expect(rows.allSatisfy { ($0[1].integer ?? 0) > 0 }, "\(rows)")
        #expect(try raw.blob("SELECT header FROM meta WHERE id = 1")[3] == 1)
        let store = try open()
        #expect(try store.findString(.genericPassword(service: "com.example.api", account: "bob@example.com")) == "NEW-BOB")
    }
}
