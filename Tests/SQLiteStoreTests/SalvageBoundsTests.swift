import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// Crafted input costs salvage bounded work: a header cell of any size is not copied once per bit, and
/// a file whose every cell starts a long overflow chain does not make the scan follow each of them.
@Suite struct SalvageBoundsTests {
    @Test func onlyAHeaderRecordOfTheStoresOwnSizeIsRepairedBitByBit() throws {
        // The sizes the store writes: a header of 53 bytes, a wrapped key of 72.
        let real = HeaderRecord(
            header: [UInt8](repeating: 1, count: StoreHeader.encodedCount), checksum: [],
            wrappedKey: [UInt8](repeating: 2, count: Sodium.nonceBytes + 32 + Sodium.tagBytes))
        let counts = HeaderRepair.variantCounts(real)
        // Each single bit, and the format byte set to each other format.
        #expect(counts.header == 1 + 8 * StoreHeader.encodedCount + Int(StoreHeader.currentVersion - StoreHeader.oldestVersion))
        #expect(counts.wrappedKey == 1 + 8 * real.wrappedKey.count)
        // An 8 KB cell (it made 65,537 copies of itself, 534 MB, before any was tried): tried as stored.
        let crafted = HeaderRecord(
            header: [UInt8](repeating: 0x5A, count: 8192), checksum: [UInt8](repeating: 0, count: 16),
            wrappedKey: [UInt8](repeating: 0xA5, count: 8192))
        let craftedCounts = HeaderRepair.variantCounts(crafted)
        #expect(craftedCounts.header == 1 && craftedCounts.wrappedKey == 1)
        let directory = TemporaryDirectory()
        let keyFile = directory.file("key")
        try FileBytes.writePrivate([UInt8](repeating: 7, count: 32), to: keyFile)
        #expect(throws: SecureStoreError.self) { try HeaderRepair.unlock(crafted, keySource: .keyFile(path: keyFile)) }
    }

    @Test func overflowChainsFromEveryCellAreBoundedWork() throws {
        // 600 pages of 4 KB chained 2 → 3 → … → 600 by their first 4 bytes (as overflow pages are),
        // each also holding 8 cells whose payload (a record header's first bytes) continues on a chain
        // of 300 overflow pages from page 2: unbounded, 4,792 cells × 300 pages = 1.4 million page
        // reads and 5.7 GB of payloads.
        let size = 4096
        let pages = 600
        let usable = size
        let minLocal = (usable - 12) * 32 / 255 - 23
        let total = minLocal + 300 * (usable - 4)
        var file = [UInt8](repeating: 0, count: size * pages)
        file.replaceSubrange(0..<16, with: Array("SQLite format 3\0".utf8))
        file[16] = UInt8(size >> 8)
        file[17] = UInt8(size & 0xFF)
        var cells = 0
        for page in 2...pages {
            let base = (page - 1) * size
            let next = page < pages ? page + 1 : 0
            for (index, shift) in [24, 16, 8, 0].enumerated() { file[base + index] = UInt8((next >> shift) & 0xFF) }
            var offset = 4
            while offset + 3 + 1 + minLocal + 4 <= size {
                let cell = base + offset
                file[cell] = UInt8(0x80 | (total >> 14) & 0x7F)
                file[cell + 1] = UInt8(0x80 | (total >> 7) & 0x7F)
                file[cell + 2] = UInt8(total & 0x7F)
                file[cell + 3] = 1  // row id
                file[cell + 4] = 7  // a record header of 7 bytes, its first column NULL
                file[cell + 5] = 0
                file[cell + 4 + minLocal + 3] = 2  // the chain starts at page 2
                offset += 3 + 1 + minLocal + 4
                cells += 1
            }
        }
        #expect(cells > 4000)
        let directory = TemporaryDirectory()
        let path = directory.file("crafted.db")
        try FileBytes.writePrivate(file, to: path)
        let source = try SQLiteSalvageSource(path: path)
        #expect(source.overflowBudget == 4 * pages + 1024)
        #expect(source.overflowPagesRead <= source.overflowBudget)
        #expect(source.overflowPagesRead > 0, "the scan did follow chains")
        #expect(throws: SecureStoreError.self) {
            try StoreSalvage.recover(from: source, keySource: .keyFile(path: directory.file("none")))
        }
    }
}
