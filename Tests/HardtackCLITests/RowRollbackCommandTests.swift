import Foundation
import RawSQLite
import SQLiteStore
import TestSupport
import Testing

/// The past of one item put back in the store file (through valid page checksums, as an attacker who
/// knows the format would write it) while the other items keep their current values: the command line
/// answers damage (exit 65), never the older secret, and `verify` does not call the store sound.
@Suite struct RowRollbackCommandTests {
    /// A raw connection that writes valid page checksums goes through the store's VFS, which the store
    /// registers when this process first opens one.
    private func raw(_ sandbox: CLISandbox) throws -> RawDatabase {
        _ = try SQLiteSecureItemStore.open(
            at: sandbox.directory.file("registers-the-vfs.db"), keySource: .key(secret(String(repeating: "k", count: 32))))
        return try RawDatabase(path: sandbox.store)
    }

    @Test func anOlderCiphertextOfOneItemPutBackExits65() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "oauth", account: "refresh", secret: "OLD-REFRESH-TOKEN")
        try await sandbox.addGeneric(service: "mail", account: "alice", secret: "MAIL")
        let old = try raw(sandbox).query("SELECT id, attrs, data FROM items ORDER BY id LIMIT 1")[0]
        try await sandbox.addGeneric(service: "oauth", account: "refresh", secret: "NEW-REFRESH-TOKEN", extra: ["-U"])
        try raw(sandbox).query("UPDATE items SET attrs = ?, data = ? WHERE id = ?", [old[1], old[2], old[0]])

        let find = try await sandbox.keychain(["find-generic-password", "-s", "oauth", "-a", "refresh", "-w"])
        #expect(find.status == 65, "\(find.stdout) \(find.stderr)")
        #expect(!find.stdout.contains("REFRESH-TOKEN") && !find.stderr.contains("REFRESH-TOKEN"))
        let verify = try await sandbox.keychain(["verify"])
        #expect(verify.status == 65, "\(verify.stdout) \(verify.stderr)")
    }

    /// The whole store put back (the limit of the digest alone) is damage with a rollback anchor: made
    /// with the store from `HARDTACK_ROLLBACK_ANCHOR`, or by `verify` for a store that had none.
    @Test func theWholeStorePutBackExits65WithARollbackAnchor() async throws {
        let sandbox = CLISandbox()
        let anchor = sandbox.directory.file("anchor/keychain.anchor")
        try FileManager.default.createDirectory(
            atPath: sandbox.directory.file("anchor"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let anchored = ["HARDTACK_ROLLBACK_ANCHOR": anchor]
        try await sandbox.addGeneric(service: "oauth", account: "refresh", secret: "OLD-REFRESH-TOKEN", environment: anchored)
        let copy = sandbox.directory.file("copy.db")
        try FileManager.default.copyItem(atPath: sandbox.store, toPath: copy)
        try await sandbox.addGeneric(
            service: "oauth", account: "refresh", secret: "NEW-REFRESH-TOKEN", extra: ["-U"], environment: anchored)
        try FileManager.default.removeItem(atPath: sandbox.store)
        try FileManager.default.copyItem(atPath: copy, toPath: sandbox.store)

        let find = try await sandbox.keychain(
            ["find-generic-password", "-s", "oauth", "-a", "refresh", "-w", "--rollback-anchor", anchor])
        #expect(find.status == 65, "\(find.stdout) \(find.stderr)")
        #expect(find.stderr.contains("older than its rollback anchor"), "\(find.stderr)")
        #expect(find.stderr.contains("move the anchor aside"), "the way back to this copy on purpose: \(find.stderr)")
        #expect(!find.stdout.contains("REFRESH-TOKEN") && !find.stderr.contains("REFRESH-TOKEN"))
        let verify = try await sandbox.keychain(["verify"], environment: anchored)
        #expect(verify.status == 65 && verify.stderr.contains("older than its rollback anchor"), "\(verify.stderr)")
        #expect(!verify.stderr.contains("salvage"), "an older copy is not counted as salvage would")

        // Without an anchor the old copy is the store it was; `verify` anchors it when told, and then it holds.
        let fresh = sandbox.directory.file("anchor/fresh.anchor")
        #expect(try await sandbox.keychain(["verify", "--rollback-anchor", fresh]).status == 65, "not made unasked")
        #expect(!FileManager.default.fileExists(atPath: fresh))
        let made = try await sandbox.keychain(["verify", "--rollback-anchor", fresh, "--new-rollback-anchor"])
        #expect(made.status == 0, "\(made.stdout) \(made.stderr)")
        #expect(made.stderr.contains("made the rollback anchor"), "verify says it anchored the store: \(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: fresh))
        let missing = try await sandbox.keychain(
            ["find-generic-password", "-s", "oauth", "-a", "refresh", "--rollback-anchor", sandbox.directory.file("anchor/none")])
        #expect(missing.status == 65 && missing.stderr.contains("is missing"), "\(missing.stderr)")
        #expect(missing.stderr.contains("--new-rollback-anchor"), "\(missing.stderr)")
    }

    @Test func aDeletedItemPutBackWithItsOldDigestExits65() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "oauth", account: "refresh", secret: "REVOKED-TOKEN")
        try await sandbox.addGeneric(service: "mail", account: "alice", secret: "MAIL")
        let raw = try self.raw(sandbox)
        let row = try raw.query("SELECT id, class, grp, uniq, prim, attrs, data FROM items ORDER BY id LIMIT 1")[0]
        let digest = try raw.value("SELECT value FROM rows_digest WHERE id = 1")
        #expect(try await sandbox.keychain(["delete-generic-password", "-s", "oauth", "-a", "refresh"]).status == 0)
        try await sandbox.addGeneric(service: "mail", account: "alice", secret: "MAIL2", extra: ["-U"])
        try raw.query("INSERT INTO items (id, class, grp, uniq, prim, attrs, data) VALUES (?, ?, ?, ?, ?, ?, ?)", row)
        try raw.query("UPDATE rows_digest SET value = ? WHERE id = 1", [digest])

        let find = try await sandbox.keychain(["find-generic-password", "-s", "oauth", "-a", "refresh", "-w"])
        #expect(find.status == 65, "\(find.stdout) \(find.stderr)")
        #expect(!find.stdout.contains("REVOKED-TOKEN") && !find.stderr.contains("REVOKED-TOKEN"))
        #expect(try await sandbox.keychain(["verify"]).status == 65)
    }
}
