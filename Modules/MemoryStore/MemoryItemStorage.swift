import Data
import StoreCore

/// The ``ItemStorage`` port over a ``MemoryDatabase``: one handle's connection. The whole contract
/// in one place, with nothing of a real database in the way.
///
/// A read outside a transaction sees the committed contents; a read transaction works on a snapshot;
/// a write transaction takes the database's write lock and works on a copy that its commit publishes
/// whole, so other handles never see half of it. A savepoint is one more copy. The unique constraint
/// on (primary, unique) is checked on every insert and index change. A write outside a write
/// transaction is refused: the engine never makes one, and this adapter says so if it ever did.
///
/// Not `Sendable`: it belongs to one ``StoreEngine``, which uses it from one thread at a time.
final class MemoryItemStorage: ItemStorage {
    private let database: MemoryDatabase
    private let busyTimeoutMilliseconds: Int32
    /// The open transaction's contents: a snapshot (read) or a working copy (write); `nil` when none.
    private var open: MemoryContents?
    /// Whether the open transaction holds the write lock.
    private var writing = false
    /// Whether the open write transaction changed anything.
    private var dirty = false
    /// The open savepoints, innermost last, each with the contents as they were when it opened.
    private var savepoints: [(name: String, contents: MemoryContents)] = []
    /// How many of the database's commits are this connection's own (see ``changeCounter()``).
    private var ownCommits: Int64 = 0

    /// A connection to `database`; a writer waits up to `busyTimeoutMilliseconds` for the write lock.
    init(database: MemoryDatabase, busyTimeoutMilliseconds: Int32) {
        self.database = database
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    /// What ``changeCounter()`` last answered, and whether a read outside a transaction has since seen
    /// another connection's commit (``changeCounterOfLastRead()``), as SQLite's pager version tells.
    private var lastCounted: (value: Int64, moved: Bool)?

    /// What a read sees: the open transaction's contents, or the committed ones (noting whether another
    /// connection committed since the counter was last read).
    private var current: MemoryContents {
        if let open { return open }
        let (contents, commits) = database.countedSnapshot()
        if let counted = lastCounted, commits - ownCommits != counted.value { lastCounted?.moved = true }
        return contents
    }

    /// Applies `change` to the open write transaction's working copy.
    private func write(_ change: (inout MemoryContents) throws(SecureStoreError) -> Void) throws(SecureStoreError) {
        guard writing, var contents = open else { throw Self.misuse("a write outside a write transaction") }
        open = nil  // Keeps the working copy uniquely referenced, so the change does not copy it.
        defer { open = contents }
        try change(&contents)
        dirty = true
    }

    private static func misuse(_ message: String) -> SecureStoreError {
        .storage(StorageFailure(backend: "memory", kind: .misuse, message: message))
    }

    // MARK: Transactions

    var isInTransaction: Bool { open != nil }

    func beginWrite() throws(SecureStoreError) {
        guard open == nil else { throw Self.misuse("a transaction is already open") }
        open = try database.beginWrite(timeoutMilliseconds: busyTimeoutMilliseconds)
        writing = true
        dirty = false
    }

    func beginRead() throws(SecureStoreError) {
        guard open == nil else { throw Self.misuse("a transaction is already open") }
        open = database.snapshot()
    }

    func commit() throws(SecureStoreError) {
        guard let contents = open else { throw Self.misuse("no transaction to commit") }
        if writing, dirty {
            database.commit(contents)
            ownCommits += 1
        } else if writing {
            database.endWrite()
        }
        end()
    }

    func rollback() {
        guard open != nil else { return }
        if writing { database.endWrite() }
        end()
    }

    private func end() {
        open = nil
        writing = false
        dirty = false
        savepoints = []
    }

    func savepoint(_ name: String) throws(SecureStoreError) {
        guard let contents = open else { throw Self.misuse("a savepoint outside a transaction") }
        savepoints.append((name, contents))
    }

    func releaseSavepoint(_ name: String) throws(SecureStoreError) {
        guard let position = savepoints.lastIndex(where: { $0.name == name }) else {
            throw Self.misuse("no savepoint named \(name)")
        }
        savepoints.removeSubrange(position...)
    }

    func rollbackToSavepoint(_ name: String) {
        guard let position = savepoints.lastIndex(where: { $0.name == name }) else { return }
        open = savepoints[position].contents
        savepoints.removeSubrange(position...)
    }

    /// The number of commits made by other connections: like SQLite's `data_version`, it changes
    /// when another handle commits and never for this one's own commits.
    func changeCounter() throws(SecureStoreError) -> Int64 {
        let value = database.commitCount - ownCommits
        lastCounted = (value, false)
        return value
    }

    /// The number of commits to the database by every handle, this one's included; `nil` inside a
    /// transaction.
    func changeMark(waiting: Bool) throws(SecureStoreError) -> UInt64? {
        open == nil ? UInt64(database.commitCount) : nil
    }

    /// ``changeCounter()`` as of every read outside a transaction since it was last asked, when none of
    /// them saw another connection's commit; `nil` when one did.
    func changeCounterOfLastRead() -> Int64? {
        guard open == nil, let lastCounted, !lastCounted.moved else { return nil }
        return lastCounted.value
    }

    // MARK: Rows

    func rows(_ selection: RowSelection, columns: RowColumns) throws(SecureStoreError) -> (rows: [ItemRow], unreadable: Int) {
        // A value in memory cannot hold a cell of the wrong type or size: nothing is ever unreadable.
        let rows = current.rowsInOrder.filter { Self.selects(selection, $0) }.map { row in
            var row = row
            if !columns.contains(.attributes) { row.sealedAttributes = [] }
            if !columns.contains(.data) { row.sealedData = [] }
            return row
        }
        return (rows, 0)
    }

    /// There is no index apart from the rows, so both ways count the same rows.
    func count(_ selection: RowSelection, bypassingIndex: Bool) throws(SecureStoreError) -> Int64 {
        Int64(current.rows.values.count { Self.selects(selection, $0) })
    }

    private static func selects(_ selection: RowSelection, _ row: ItemRow) -> Bool {
        switch selection {
        case .unique(let primary, let unique): row.primary == primary && row.unique == unique
        case .primary(let primary): row.primary == primary
        case .classAndGroup(let itemClass, let group): row.itemClass == itemClass && row.group == group
        case .all: true
        }
    }

    func newestRowID() throws(SecureStoreError) -> Int64 { current.rows.keys.max() ?? 0 }

    func insert(_ row: ItemRow) throws(SecureStoreError) {
        try write { contents throws(SecureStoreError) in
            guard contents.rows[row.id] == nil else { throw Self.misuse("row id \(row.id) is in use") }
            guard !contents.uniqueKeyTaken(by: row) else { throw .duplicateItem }
            contents.rows[row.id] = row
        }
    }

    func insertIfNewest(_ row: ItemRow) throws(SecureStoreError) -> Bool {
        guard row.id > (current.rows.keys.max() ?? 0) else { return false }
        try insert(row)
        return true
    }

    func updateCiphertexts(ofRow id: Int64, attributes: [UInt8], data: [UInt8]) throws(SecureStoreError) {
        try write { contents in
            contents.rows[id]?.sealedAttributes = attributes
            contents.rows[id]?.sealedData = data
        }
    }

    func updateRow(_ row: ItemRow) throws(SecureStoreError) {
        try write { contents throws(SecureStoreError) in
            guard let old = contents.rows[row.id] else { return }
            guard !contents.uniqueKeyTaken(by: row) else { throw .duplicateItem }
            // The class stays: the port replaces index cells and ciphertexts only.
            var new = row
            new.itemClass = old.itemClass
            contents.rows[row.id] = new
        }
    }

    func deleteRow(_ id: Int64) throws(SecureStoreError) {
        try write { contents in contents.rows[id] = nil }
    }

    func deleteRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError) -> [Int64] {
        var deleted: [Int64] = []
        try write { contents in
            deleted = contents.rowsInOrder.filter { $0.itemClass == itemClass && $0.cells == cells }.map(\.id)
            for id in deleted { contents.rows[id] = nil }
        }
        return deleted
    }

    func forEachIndexEntry(
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?) throws(SecureStoreError) -> Void
    ) throws(SecureStoreError) {
        for row in current.rowsInOrder { try visit(row.id, Int64(row.itemClass.rawValue), row.cells) }
    }

    // MARK: Rows digest and header

    func loadRowsDigest() throws(SecureStoreError) -> [UInt8]? { current.rowsDigest }

    func storeRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError) {
        try write { contents in contents.rowsDigest = encoded }
    }

    func createRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError) { try storeRowsDigest(encoded) }

    func readHeaderRecord() throws(SecureStoreError) -> HeaderRecord? { current.header }

    func replaceHeaderRecord(_ record: HeaderRecord) throws(SecureStoreError) {
        try write { contents throws(SecureStoreError) in
            guard contents.header != nil else { throw Self.misuse("there is no header to replace") }
            contents.header = record
        }
    }

    /// Nothing to do: a replaced record is gone once its transaction commits.
    func discardReplacedHeaderRecords() {}

    /// Nothing can be structurally damaged in memory.
    func structuralCheck() throws(SecureStoreError) -> String { "ok" }

    /// Creates the store (its header record and an empty rows digest) in the open write transaction;
    /// `false`, having written nothing, when another handle created it first.
    func createStore(_ record: HeaderRecord, emptyDigest: [UInt8]) throws(SecureStoreError) -> Bool {
        guard current.header == nil else { return false }
        try write { contents in
            contents.header = record
            contents.rowsDigest = emptyDigest
        }
        return true
    }
}
