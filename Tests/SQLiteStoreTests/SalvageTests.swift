import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// Salvage over damaged store files: what authenticates comes back exactly as written, nothing else
/// ever does, and the damaged file is left as it was.
@Suite struct SalvageTests {
    @Test func aSoundStoreComesBackWhole() throws {
        let store = SalvageFixture(count: 50)
        try store.create()
        let before = store.files
        let result = try store.salvage()
        #expect(store.audit(result) == SalvageFixture.Audit(wrong: 0, right: 50))
        #expect(result.isComplete)
        #expect(result.expected == 50)
        #expect(result.lost.isEmpty)
        #expect(store.files == before)
    }

    @Test func oneDamagedPageOfAThousandItemsCostsOnlyItsOwnItems() throws {
        let store = SalvageFixture(count: 1000)
        try store.create()
        let leaves = store.leafPages(minimumCells: 4)
        #expect(leaves.count > 20)
        let page = leaves[leaves.count / 2]
        let size = store.pageSize
        // Destroy a quarter of the page, its header and cell pointers included.
        try store.damage { bytes in
            for offset in ((page - 1) * size)..<((page - 1) * size + size / 4) { bytes[offset] ^= 0xA5 }
        }
        let before = store.files
        let result = try store.salvage()
        let (wrong, right) = (store.audit(result).wrong, store.audit(result).right)
        #expect(wrong == 0)
        #expect(right >= 900, "recovered \(right) of 1000")
        #expect(right < 1000 || result.isComplete)
        #expect(result.damagedParts >= 1)
        #expect(result.expected == 1000)
        #expect(result.isComplete == (right == 1000))
        #expect(result.lostCount == 1000 - right)
        #expect(store.files == before, "salvage changed the damaged store")
    }

    /// On a format-1 store the flipped ciphertext is the secret's, and the item is named by its
    /// attributes; a joint row's one ciphertext holds both, so nothing of it names it.
    @Test(arguments: [UInt8(1), StoreHeader.currentVersion])
    func aFlippedBitInOneCiphertextLosesThatItemOnly(format: UInt8) throws {
        var store = SalvageFixture(count: 30)
        store.fixture.format = format
        try store.create()
        let data = try store.fixture.raw().blob("SELECT data FROM items WHERE id = 12")
        try store.damage { bytes in
            let start = SalvageFixture.firstIndex(of: data, in: bytes)!
            bytes[start + data.count / 2] ^= 0x10
        }
        let result = try store.salvage()
        #expect(store.audit(result) == SalvageFixture.Audit(wrong: 0, right: 29))
        #expect(result.lost.map(\.rowID) == [12])
        if format == 1 {
            #expect(result.lost.first?.reason == .data)
            #expect(result.lost.first?.name[.account] == .string("account-11"), "the lost item is named")
        } else {
            #expect(result.lost.first?.reason == .attributes)
            #expect(result.lost.first?.name.isEmpty == true)
        }
        #expect(!result.isComplete)
        #expect(result.lostCount == 1)
    }

    @Test func anEmptyStoreFileHasNothingToSalvage() throws {
        let store = SalvageFixture(count: 1)
        try store.create()
        try FileBytes.writePrivate([], to: store.fixture.path)
        #expect {
            _ = try store.salvage()
        } throws: { error in
            (error as? SecureStoreError)?.isIntegrityFailure == true
        }
        #expect(FileBytes.read(store.fixture.path).isEmpty)
    }

    @Test func aTruncatedStoreGivesBackTheItemsOnItsRemainingPages() throws {
        let store = SalvageFixture(count: 200)
        try store.create()
        let leaves = store.leafPages(minimumCells: 1)
        let cut = (leaves[leaves.count / 2] - 1) * store.pageSize + store.pageSize / 3
        try store.damage { bytes in bytes.removeSubrange(cut...) }
        let before = store.files
        let result = try store.salvage()
        let (wrong, right) = (store.audit(result).wrong, store.audit(result).right)
        #expect(wrong == 0)
        #expect(right > 0 && right < 200)
        #expect(!result.isComplete)
        #expect(store.files == before)
    }

    @Test func theWrongKeyIsRefused() throws {
        let store = SalvageFixture(count: 3)
        try store.create()
        let other = store.fixture.directory.file("other.key")
        try FileBytes.writePrivate(Array(repeating: 7, count: 32), to: other)
        #expect {
            _ = try StoreSalvage.recover(from: try SQLiteSalvageSource(path: store.fixture.path), keySource: .keyFile(path: other))
        } throws: { error in
            if case .wrongKey = error as? SecureStoreError { return true }
            return false
        }
    }

    @Test func itemsOnlyInTheLogComeBackAndTheNewestVersionWins() throws {
        let store = SalvageFixture(count: 20)
        try store.create()
        // The handle stays open, so its writes stay in the write-ahead log, not yet in the file.
        let open = try store.fixture.open()
        try open.update(.genericPassword(service: "service-3", account: "account-3"), attributes: nil, data: secret("NEWER"))
        try open.add(.genericPassword(service: "late", account: "account-late"), data: secret("LATE"))
        #expect(FileBytes.read(store.fixture.walPath).count > 0)
        let before = store.files
        let result = try store.salvage()
        #expect(store.files == before)
        #expect(result.items.count == 21)
        #expect(result.isComplete, "the digest in the log counts the item added there")
        let three = result.items.first { $0.attributes.string(.account) == "account-3" }
        #expect(three?.data.text == "NEWER")
        #expect(result.items.contains { $0.data.text == "LATE" })
        #expect(result.items.filter { $0.attributes.string(.account) == "account-3" }.count == 1)
        _ = open
    }

    @Test(arguments: ["header", "checksum", "wrapped_key"])
    func oneFlippedBitInTheHeaderRecordIsRepairedByAuthentication(column: String) throws {
        let store = SalvageFixture(count: 10)
        try store.create()
        let cell = try store.fixture.raw().blob("SELECT \(column) FROM meta WHERE id = 1")
        // The bit flipped in both copies of the header record (meta and meta_copy).
        try store.damage { bytes in
            var from = 0
            var flipped = 0
            while let start = SalvageFixture.firstIndex(of: cell, in: Array(bytes[from...])).map({ $0 + from }) {
                bytes[start + cell.count / 2] ^= 0x08
                from = start + cell.count
                flipped += 1
            }
            #expect(flipped == 2)
        }
        // The store itself no longer opens: both copies of the wrapped key are damaged.
        #expect(throws: SecureStoreError.self) { _ = try store.fixture.open() }
        let result = try store.salvage()
        #expect(store.audit(result) == SalvageFixture.Audit(wrong: 0, right: 10))
        #expect(result.isComplete)
    }

    @Test func randomDamageNeverGivesBackAWrongItem() throws {
        let store = SalvageFixture(count: 40)
        try store.create()
        let pristine = FileBytes.read(store.fixture.path)
        // A fixed-seed generator (SplitMix64), so a failure replays.
        var state: UInt64 = 0x5A17_A6E0
        func next() -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
        var recovered = 0
        for _ in 0..<60 {
            var bytes = pristine
            // A run of random bytes at a random place, or a file cut at a random length.
            if next() % 4 == 0 {
                bytes.removeSubrange((next() % bytes.count)...)
            } else {
                let start = next() % bytes.count
                for offset in start..<min(bytes.count, start + 1 + next() % 600) { bytes[offset] = UInt8(next() & 0xFF) }
            }
            try FileBytes.writePrivate(bytes, to: store.fixture.path)
            guard let result = try? store.salvage() else { continue }
            let audit = store.audit(result)
            #expect(audit.wrong == 0)
            #expect(!result.isComplete || audit.right == 40)
            recovered += audit.right
        }
        #expect(recovered > 60 * 40 / 2, "salvage recovered \(recovered) of \(60 * 40) item-trials")
    }
}
