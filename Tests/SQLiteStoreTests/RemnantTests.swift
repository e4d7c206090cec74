import Data
import Domain
import Foundation
import TestSupport
import Testing

/// No plaintext on disk: a secret and its attribute values never appear in the database, its
/// write-ahead log or its shared-memory file, whether added, updated or deleted, before or after a
/// checkpoint; and a deleted item's ciphertext is wiped, not just unlinked.
@Suite struct RemnantTests {
    let fixture = StoreFixture()

    private struct Canaries {
        let secret: String
        let service: String
        let account: String
        let label: String
        let comment: String

        init(_ tag: String) {
            secret = "CANARY-SECRET-7f3a\(tag)c1d2e3f4"
            service = "CANARY-SERVICE-\(tag)91b0"
            account = "CANARY-ACCOUNT-\(tag)44ae"
            label = "CANARY-LABEL-\(tag)0d6c"
            comment = "CANARY-COMMENT-\(tag)e5f2"
        }

        var attributes: ItemAttributes {
            .genericPassword(service: service, account: account, label: label, comment: comment)
        }

        var all: [String] { [secret, service, account, label, comment] }
    }

    private let first = Canaries("A")
    private let second = Canaries("B")

    /// Records an issue for each canary (in UTF-8 or UTF-16) found in the db, -wal or -shm file.
    private func expectAbsent(
        _ canaries: [String], _ moment: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let files = fixture.allFileBytes
        #expect(!files[0].bytes.isEmpty, sourceLocation: sourceLocation)
        for (name, bytes) in files {
            for canary in canaries {
                for encoding in [Array(canary.utf8), canary.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }] {
                    #expect(
                        !FileBytes.contains(bytes, encoding), "\(canary) in the \(name) file \(moment)",
                        sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func canariesNeverReachTheFiles() throws {
        let store = try fixture.open()
        try store.add(.genericPassword(service: "unrelated", account: "x"), data: secret("filler"))
        try store.add(first.attributes, data: secret(first.secret))
        #expect(FileBytes.read(fixture.walPath).count > 0)
        expectAbsent(first.all, "after add")
        try store.checkpoint()
        expectAbsent(first.all, "after add and checkpoint")

        try store.update(
            .genericPassword(service: first.service, account: first.account),
            attributes: .genericPassword(
                service: second.service, account: second.account, label: second.label, comment: second.comment),
            data: secret(second.secret))
        #expect(try store.findString(.genericPassword(service: second.service)) == second.secret)
        expectAbsent(first.all + second.all, "after update")
        try store.checkpoint()
        expectAbsent(first.all + second.all, "after update and checkpoint")

        #expect(try store.delete(.genericPassword(service: second.service)) == 1)
        expectAbsent(first.all + second.all, "after delete")
        try store.checkpoint()
        expectAbsent(first.all + second.all, "after delete and checkpoint")
        try store.addOrUpdate(second.attributes, data: secret(second.secret))
        try store.addOrUpdate(second.attributes, data: secret(first.secret))
        expectAbsent(first.all + second.all, "after add-or-update")
    }

    @Test func aDeletedItemsCiphertextIsWipedFromTheFile() throws {
        do {
            let store = try fixture.open()
            try store.add(.genericPassword(service: "keep"), data: secret("kept"))
            try store.add(first.attributes, data: secret(first.secret))
            try store.add(.genericPassword(service: "keep too"), data: secret("kept too"))
            try store.checkpoint()
        }
        let (sealedAttributes, sealedData) = try {
            let raw = try fixture.raw()
            return (
                try raw.blob("SELECT attrs FROM items WHERE id = 2"),
                try raw.blob("SELECT data FROM items WHERE id = 2")
            )
        }()
        #expect(FileBytes.contains(FileBytes.read(fixture.path), Array(sealedData.prefix(32))))
        do {
            let store = try fixture.open()
            #expect(try store.delete(.genericPassword(service: first.service)) == 1)
            try store.checkpoint()
            for (name, bytes) in fixture.allFileBytes {
                #expect(!FileBytes.contains(bytes, Array(sealedData.prefix(32))), "data ciphertext in \(name)")
                // A joint row (the current format) has no attributes ciphertext of its own.
                #expect(
                    sealedAttributes.isEmpty || !FileBytes.contains(bytes, Array(sealedAttributes.prefix(32))),
                    "attributes ciphertext in \(name)")
            }
        }
        #expect(try fixture.open().find(.genericPassword(), limit: .all).count == 2)
    }

    /// Found by the torture bench: SQLite's own checkpoint restarts the log from its first frame, and
    /// frames written late in the previous cycle (a deleted item's ciphertext among them) stay at the
    /// file's tail until overwritten. An explicit checkpoint truncates the log and removes them.
    @Test func aDeletedItemsCiphertextLeavesTheLogAtTheNextCheckpoint() throws {
        let store = try fixture.open()
        let filler = secret(String(repeating: "f", count: 3000))
        var fills = 0
        func fill() throws {
            try store.addOrUpdate(.genericPassword(service: "filler", account: "\(fills % 40)"), data: filler)
            fills += 1
        }
        // Late in the log's cycle (SQLite checkpoints at 1000 pages, about 4 MB)...
        while FileBytes.read(fixture.walPath).count < 3_900_000 && fills < 5000 { try fill() }
        try store.add(first.attributes, data: secret(first.secret))
        let sealedData = try fixture.raw().blob("SELECT data FROM items WHERE id = (SELECT max(id) FROM items)")
        let writtenToTheLog = FileBytes.contains(FileBytes.read(fixture.walPath), sealedData)
        #expect(writtenToTheLog)
        #expect(try store.delete(.genericPassword(service: first.service)) == 1)
        // ...then the automatic checkpoint, the log's restart, a few commits, and a checkpoint.
        for _ in 0..<150 { try fill() }
        try store.checkpoint()
        let leftInTheLog = FileBytes.contains(FileBytes.read(fixture.walPath), sealedData)
        let leftInTheDatabase = FileBytes.contains(FileBytes.read(fixture.path), sealedData)
        #expect(!leftInTheLog)
        #expect(!leftInTheDatabase)
    }

    @Test func equalLengthAttributesGiveEqualLengthCiphertexts() throws {
        // A joint row's attributes and secret are padded together to 64-byte blocks: a short label with
        // a longer secret and a longer label with a short one, within one block, are indistinguishable
        // by size (the attributes here take 38 bytes and 56).
        do {
            let store = try fixture.open()
            try store.add(.genericPassword(service: "s", account: "1", label: "ab"), data: secret("x"))
            try store.add(.genericPassword(service: "s", account: "2", label: String(repeating: "b", count: 20)),
                data: secret("y"))
            try store.add(.genericPassword(service: "s", account: "3", label: "c"), data: secret(String(repeating: "z", count: 20)))
            try store.checkpoint()
        }
        let raw = try fixture.raw()
        let rows = try raw.query("SELECT length(attrs), length(data) FROM items ORDER BY id")
        #expect(rows.allSatisfy { $0[0] == .integer(0) })
        #expect(rows.allSatisfy { $0[1] == .integer(24 + 64 + 16) }, "\(rows)")
    }
}
