package import StoreCore
package import Data

/// A damaged store file read for salvage without SQLite: its pages (``SQLitePageImages``), the cells
/// on them (``SQLiteCellScanner``), and the records of the store's three tables told apart by their
/// shape: an item row (7 columns: the row id's NULL, an integer class, index cells of 16, 16 and 8
/// bytes, two ciphertexts), the header record (row 1: NULL and three blobs) and the rows digest (row
/// 1: NULL and a blob of 24 bytes, or of 64 sealed in a store of format 3). Nothing is decided here;
/// ``StoreSalvage`` authenticates every candidate.
package final class SQLiteSalvageSource: SalvageSource {
    /// The pages read.
    private let images: SQLitePageImages
    /// Every record found, with its row id and the recency of the page it was on.
    private var records: [(rowID: Int64, values: [SQLiteRecord.Value], recency: Int64, structured: Bool)] = []

    /// Overflow pages the scan read (its work, bounded by ``overflowBudget``).
    package let overflowPagesRead: Int
    /// The most overflow pages the scan could read.
    package let overflowBudget: Int

    /// Reads the store file at `path` (and its `-wal`), read-only.
    /// - Throws: ``SecureStoreError/storage(_:)`` when the file cannot be read.
    package init(path: String) throws(SecureStoreError) {
        images = try SQLitePageImages(path: path)
        let scanner = SQLiteCellScanner(images: images)
        let pages = images.pages.values.sorted(by: { $0.number < $1.number })
        // The cells the pages' own structure leads to first, so that the overflow budget goes to them
        // before any try at every offset.
        var structured: [Int: (cells: Set<SQLiteCellScanner.Cell>, offsets: Set<Int>)] = [:]
        for page in pages { structured[page.number] = scanner.structuredCells(of: page, accept: Self.mayBeStoreRecord) }
        for page in pages {
            let (known, offsets) = structured[page.number] ?? ([], [])
            let tried = scanner.offsetCells(of: page, accept: Self.mayBeStoreRecord, skipping: offsets, known: known)
            for cell in known.union(tried) {
                guard let values = SQLiteRecord.values(cell.payload, maxColumns: 8) else { continue }
                records.append((cell.rowID, values, page.recency, cell.structured))
            }
        }
        overflowPagesRead = scanner.overflowPagesRead
        overflowBudget = scanner.overflowBudget
        // Newest copies first, and of those, the ones the pages' own structure leads to (a try at every
        // offset can also find a record's shape by chance, inside other bytes).
        records.sort { ($0.recency, $0.structured ? 1 : 0) > ($1.recency, $1.structured ? 1 : 0) }
    }

    /// How many pages of the database file at `path` fail their checksum (pages its log replaces
    /// aside), read without SQLite; 0 when the file cannot be read.
    package static func damagedPages(path: String) -> Int {
        (try? SQLitePageImages(path: path))?.damagedPages ?? 0
    }

    /// A quick look at a payload's record header: 2, 4 or 7 columns, the first NULL.
    private static func mayBeStoreRecord(_ payload: [UInt8]) -> Bool {
        guard payload.count >= 3, payload[0] >= 3, payload[0] <= 24, payload[1] == 0 else { return false }
        return true
    }

    /// Every `meta` record found (row 1: NULL and three blobs), newest page first.
    package func headerRecords() throws(SecureStoreError) -> [HeaderRecord] {
        records.compactMap { record in
            guard record.rowID == 1, record.values.count == 4, case .bytes(let header) = record.values[1],
                case .bytes(let checksum) = record.values[2], case .bytes(let wrapped) = record.values[3]
            else { return nil }
            return HeaderRecord(header: header, checksum: checksum, wrappedKey: wrapped)
        }
    }

    /// Every `rows_digest` record found (row 1: NULL and a blob of a plain or a sealed digest's size,
    /// with a write generation from format 4), newest page first.
    package func rowsDigests() throws(SecureStoreError) -> [[UInt8]] {
        records.compactMap { record in
            guard record.rowID == 1, record.values.count == 2, case .bytes(let value) = record.values[1],
                [RowsDigest.encodedBytes, RowsDigest.sealedBytes, RowsDigest.sealedBytes + 8].contains(value.count)
            else { return nil }
            return value
        }
    }

    /// Every distinct copy of an item row found, and the rows whose class or index cells cannot be read.
    package func candidateRows() throws(SecureStoreError) -> SalvageScan {
        var candidates: [SalvageCandidate] = []
        var unreadable: [(rowID: Int64?, classCode: Int64?)] = []
        var seen: Set<[UInt8]> = []
        for record in records where record.values.count == 7 && record.values[0] == .null {
            guard case .integer(let classCode) = record.values[1] else { continue }
            guard case .bytes(let group) = record.values[2], case .bytes(let unique) = record.values[3],
                case .bytes(let primary) = record.values[4], case .bytes(let attributes) = record.values[5],
                case .bytes(let data) = record.values[6]
            else { continue }
            guard let itemClass = ItemClass(rawValue: UInt8(clamping: classCode)),
                let group = Self.index(group, ItemKeys.indexBytes), let unique = Self.index(unique, ItemKeys.indexBytes),
                let primary = Self.index(primary, ItemKeys.primaryIndexBytes)
            else {
                unreadable.append((record.rowID, classCode))
                continue
            }
            // The same copy found twice (through the page's structure and by offset, or on two pages).
            var identity = withUnsafeBytes(of: record.rowID) { Array($0) } + attributes
            identity += data
            guard seen.insert(identity).inserted else { continue }
            candidates.append(
                SalvageCandidate(
                    row: ItemRow(
                        id: record.rowID, itemClass: itemClass, group: group, unique: unique, primary: primary,
                        sealedAttributes: attributes, sealedData: data),
                    recency: record.recency))
        }
        return SalvageScan(
            candidates: candidates, unreadable: unreadable, damagedParts: images.damagedPages, partsRead: images.pages.count)
    }

    private static func index(_ bytes: [UInt8], _ count: Int) -> BlindIndex? {
        bytes.withUnsafeBytes { BlindIndex(copying: $0, expectedCount: count) }
    }
}
