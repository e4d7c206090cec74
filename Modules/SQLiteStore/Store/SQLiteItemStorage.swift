import Data
import Foundation
import StoreCore

/// The store's rows in one SQLite file: the `items` table, the `rows_digest` row and the header record
/// (`meta` and its copy `meta_copy`), through one connection. Statements of the hot path are prepared
/// on first use and held by position.
///
/// Not `Sendable`: it belongs to one ``StoreEngine``, which uses it from one thread at a time.
final class SQLiteItemStorage: ItemStorage {
    /// The connection to the store's file.
    let connection: SQLiteConnection
    private var statements: [SQLiteStatement?] = Array(repeating: nil, count: SQLiteQuery.allCases.count * 4)
    /// The encoded rows digest as this connection last read or committed it, with the `data_version`
    /// read before it: while `data_version` stays the same, no other connection has committed and the
    /// stored digest is still these bytes, so a write transaction need not read it again.
    private var knownDigest: (version: Int64, encoded: [UInt8])?
    /// The `data_version` read in the open transaction (it cannot change until the transaction ends).
    var transactionVersion: Int64?
    /// The pager's data version when `data_version` was last read, and what it read
    /// (``changeCounterOfLastRead()``).
    var lastDataVersion: (pager: UInt32, value: Int64)?
    /// The digest this transaction wrote, remembered as ``knownDigest`` once it commits; `nil` when it
    /// wrote none, or when a savepoint rolled back after it did (then nothing is remembered).
    private var writtenDigest: [UInt8]?
    /// Whether the open transaction's commit may leave ``knownDigest`` as it is or set it.
    private var digestCacheable = true

    /// Change marks read through connections of their own (see ``SQLiteChangeMarks``): a store opened to
    /// write has them; one opened read-only reads its marks through this connection.
    let changeMarkSource: (any ChangeMarkSource)?

    /// Storage over an open, configured connection; `marks` when the store gives marks without it.
    init(connection: SQLiteConnection, marks: SQLiteChangeMarks? = nil) {
        self.connection = connection
        changeMarkSource = marks
    }

    /// The statement for `query` reading `columns`, prepared on first use and kept by position.
    func statement(_ query: SQLiteQuery, columns: RowColumns = RowColumns(rawValue: 0)) throws(SecureStoreError)
        -> SQLiteStatement
    {
        let slot = query.rawValue * 4 + Int(columns.rawValue)
        if let statement = statements[slot] { return statement }
        let statement = try connection.prepared(query.sql(columns: columns))
        statements[slot] = statement
        return statement
    }

    // MARK: Transactions

    var isInTransaction: Bool { connection.isInTransaction }

    func beginWrite() throws(SecureStoreError) {
        startTransaction()
        try connection.beginImmediate()
    }

    func beginRead() throws(SecureStoreError) {
        startTransaction()
        try connection.prepared("BEGIN").run()
    }

    func commit() throws(SecureStoreError) {
        do {
            try connection.commit()
        } catch {
            endTransaction(committed: false)
            throw error
        }
        endTransaction(committed: true)
    }

    func rollback() {
        if connection.isInTransaction { try? connection.rollback() }
        endTransaction(committed: false)
    }

    private func startTransaction() {
        transactionVersion = nil
        writtenDigest = nil
        digestCacheable = true
    }

    /// Forgets the transaction's `data_version`; after a commit that wrote the digest, remembers it.
    private func endTransaction(committed: Bool) {
        if !committed || !digestCacheable {
            knownDigest = nil
        } else if let writtenDigest, let transactionVersion {
            // This connection's own commit leaves `data_version` as it was.
            knownDigest = (transactionVersion, writtenDigest)
        }
        transactionVersion = nil
        writtenDigest = nil
        digestCacheable = true
    }

    func savepoint(_ name: String) throws(SecureStoreError) { try connection.prepared("SAVEPOINT \(name)").run() }

    func releaseSavepoint(_ name: String) throws(SecureStoreError) { try connection.prepared("RELEASE \(name)").run() }

    func rollbackToSavepoint(_ name: String) {
        // The digest written before the savepoint may be undone with it: remember nothing.
        digestCacheable = false
        writtenDigest = nil
        // Fails only when SQLite already rolled back the whole transaction; COMMIT then fails too.
        try? connection.execute("ROLLBACK TO \(name); RELEASE \(name)")
    }

    // MARK: Rows

    func rows(_ selection: RowSelection, columns: RowColumns) throws(SecureStoreError) -> (rows: [ItemRow], unreadable: Int) {
        let select: SQLiteStatement
        switch selection {
        case .unique(let primary, let unique):
            select = try statement(.byUnique, columns: columns)
            select.bind(primary, at: 1)
            select.bind(unique, at: 2)
        case .primary(let primary):
            select = try statement(.byPrimary, columns: columns)
            select.bind(primary, at: 1)
        case .classAndGroup(let itemClass, let group):
            select = try statement(.byClassAndGroup, columns: columns)
            select.bind(Int64(itemClass.rawValue), at: 1)
            select.bind(group, at: 2)
        case .all:
            select = try statement(.all, columns: columns)
        }
        defer { select.reset() }
        var rows: [ItemRow] = []
        var unreadable = 0
        while try select.step() {
            guard let row = itemRow(select, columns: columns) else {
                unreadable += 1
                continue
            }
            rows.append(row)
        }
        return (rows, unreadable)
    }

    func count(_ selection: RowSelection, bypassingIndex: Bool) throws(SecureStoreError) -> Int64 {
        let select: SQLiteStatement
        switch selection {
        case .unique(let primary, let unique):
            select = try statement(bypassingIndex ? .countUniqueNotIndexed : .countUnique)
            select.bind(primary, at: 1)
            select.bind(unique, at: 2)
        case .primary(let primary):
            select = try statement(bypassingIndex ? .countPrimaryNotIndexed : .countPrimary)
            select.bind(primary, at: 1)
        case .classAndGroup, .all:
            preconditionFailure("only lookups through an index are counted both ways")
        }
        defer { select.reset() }
        _ = try select.step()
        return select.int64(at: 0)
    }

    func newestRowID() throws(SecureStoreError) -> Int64 {
        let last = try statement(.lastID)
        defer { last.reset() }
        _ = try last.step()
        return last.int64(at: 0)
    }

    func insert(_ row: ItemRow) throws(SecureStoreError) {
        let insert = try statement(.insert)
        bindRow(row, to: insert)
        try insert.run()
    }

    func insertIfNewest(_ row: ItemRow) throws(SecureStoreError) -> Bool {
        let insert = try statement(.insertIfNewest)
        bindRow(row, to: insert)
        return try insert.run(unlessConstraint: .notNull)
    }

    func updateCiphertexts(ofRow id: Int64, attributes: [UInt8], data: [UInt8]) throws(SecureStoreError) {
        let update = try statement(.updateSealed)
        update.bind(attributes, at: 1)
        update.bind(data, at: 2)
        update.bind(id, at: 3)
        try update.run()
    }

    func updateRow(_ row: ItemRow) throws(SecureStoreError) {
        let update = try statement(.updateAll)
        update.bind(row.group, at: 1)
        update.bind(row.unique, at: 2)
        update.bind(row.primary, at: 3)
        update.bind(row.sealedAttributes, at: 4)
        update.bind(row.sealedData, at: 5)
        update.bind(row.id, at: 6)
        try update.run()
    }

    func forEachIndexEntry(
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?) throws(SecureStoreError) -> Void
    ) throws(SecureStoreError) {
        let scan = try statement(.indexEntries)
        defer { scan.reset() }
        while try scan.step() {
            try visit(scan.int64(at: 0), scan.strictInteger(at: 1), indexCells(scan))
        }
    }

    /// The group, unique and primary index cells of the current row (columns 2, 3 and 4 of every item
    /// query), or `nil` when one of them is not a blob of its size.
    func indexCells(_ statement: SQLiteStatement) -> IndexCells? {
        guard let group = statement.blindIndex(at: 2, count: ItemKeys.indexBytes),
            let unique = statement.blindIndex(at: 3, count: ItemKeys.indexBytes),
            let primary = statement.blindIndex(at: 4, count: ItemKeys.primaryIndexBytes)
        else { return nil }
        return IndexCells(group: group, unique: unique, primary: primary)
    }

    /// Binds a row to an insert's seven parameters, in column order.
    private func bindRow(_ row: ItemRow, to statement: SQLiteStatement) {
        statement.bind(row.id, at: 1)
        statement.bind(Int64(row.itemClass.rawValue), at: 2)
        statement.bind(row.group, at: 3)
        statement.bind(row.unique, at: 4)
        statement.bind(row.primary, at: 5)
        statement.bind(row.sealedAttributes, at: 6)
        statement.bind(row.sealedData, at: 7)
    }

    // MARK: Rows digest

    func loadRowsDigest() throws(SecureStoreError) -> [UInt8]? {
        // The version first: a commit by another connection between the two reads then makes the
        // remembered version stale (the digest is read again next time), never the remembered bytes.
        let version = try changeCounter()
        if let knownDigest, knownDigest.version == version { return knownDigest.encoded }
        // After another connection's commit the table may be gone (dropped outside the store): a
        // missing digest, for the engine to judge, not a failed statement. (This connection's own
        // commits leave `data_version`, and so the remembered digest, as they were: no query here.)
        guard try SQLiteSchema.hasTable("rows_digest", connection) else {
            knownDigest = nil
            return nil
        }
        let load = try statement(.loadDigest)
        defer { load.reset() }
        guard try load.step() else {
            knownDigest = nil
            return []
        }
        let encoded = load.bytes(at: 0)
        knownDigest = (version, encoded)
        return encoded
    }

    func storeRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError) {
        writtenDigest = nil
        knownDigest = nil
        let store = try statement(.storeDigest)
        store.bind(encoded, at: 1)
        try store.run()
        writtenDigest = encoded
    }

    func createRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError) {
        knownDigest = nil
        digestCacheable = false
        try connection.execute(RowsDigest.schema)
        let insert = try connection.prepared("INSERT INTO rows_digest (id, value) VALUES (1, ?)")
        insert.bind(encoded, at: 1)
        try insert.run()
    }

    // MARK: Header and maintenance

    /// The header record of the sound copy (``SQLiteHeaderCopies``).
    func readHeaderRecord() throws(SecureStoreError) -> HeaderRecord? {
        try SQLiteHeaderCopies.read(connection).record()
    }

    /// Writes `meta` whole (a missing row is written again), and through its trigger `meta_copy`, in
    /// the open write transaction.
    func replaceHeaderRecord(_ record: HeaderRecord) throws(SecureStoreError) {
        let statement = try connection.prepared(
            "INSERT OR REPLACE INTO meta (id, header, checksum, wrapped_key) VALUES (1, ?, ?, ?)")
        statement.bind(record.header, at: 1)
        statement.bind(record.checksum, at: 2)
        statement.bind(record.wrappedKey, at: 3)
        try statement.run()
    }

    /// Moves the log into the file so that the old wrapped key does not linger there; `secure_delete`
    /// then clears the old row's bytes in the main file. A reader elsewhere may keep the log busy.
    func discardReplacedHeaderRecords() {
        try? connection.checkpointTruncate()
    }

    /// SQLite's `integrity_check`, with a page that failed its checksum named in words. Not
    /// `quick_check`: only the full check compares the index with the table, and an index entry that
    /// points at another item's row is damage that no row's own ciphertexts show (`IndexDesyncTests`).
    func structuralCheck() throws(SecureStoreError) -> String {
        let check = try connection.scalarText("PRAGMA integrity_check") ?? "no answer"
        // SQLite names a page that failed its checksum only by the error's number.
        return check.replacingOccurrences(
            of: "error code=\(SQLiteChecksumVFS.damagedPageCode)", with: "its checksum does not match")
    }
}
