package import Data
package import Foundation

/// The port between the store core and one database: rows in, rows out, transactions and savepoints,
/// and a change counter. Each adapter (SQLite, PostgreSQL, in memory) implements it; the core keeps
/// every rule of the store (encryption, binding, blind indexes, the rows digest, Keychain semantics)
/// and never sees SQL.
///
/// An adapter sees only ciphertexts and blind indexes. It reports a cell it cannot read as it is
/// stored (a wrong type, a wrong size, an unknown class) by leaving the row out and counting it, never
/// by guessing: the core decides whether that is damage.
///
/// Not `Sendable`: one engine owns its storage and calls it from one thread at a time.
package protocol ItemStorage: AnyObject {
    /// Whether a transaction is open (a backend may roll one back by itself after some failures).
    var isInTransaction: Bool { get }
    /// Starts a write transaction that holds the store's write lock before anything is read, so that
    /// read-then-write is never interleaved with another writer.
    func beginWrite() throws(SecureStoreError)
    /// ``beginWrite()`` for one of the store's own operations, which the engine runs again at once when
    /// ``takeFailedAssumption()`` says so: the backend may then answer the transaction's first lock from
    /// what its own last commit left, and check it on the server with the statements that follow.
    func beginOwnWrite() throws(SecureStoreError)
    /// Whether the last write transaction failed only because a lock the backend assumed did not hold
    /// (nothing of it was committed); reading it clears it.
    func takeFailedAssumption() -> Bool
    /// Starts a read transaction: every read until ``commit()`` sees one snapshot.
    func beginRead() throws(SecureStoreError)
    /// Commits the open transaction.
    func commit() throws(SecureStoreError)
    /// Rolls the open transaction back, if one is open; never fails.
    func rollback()
    /// Opens a savepoint inside the open transaction.
    func savepoint(_ name: String) throws(SecureStoreError)
    /// Releases a savepoint, keeping its writes in the enclosing transaction.
    func releaseSavepoint(_ name: String) throws(SecureStoreError)
    /// Undoes the writes since a savepoint and releases it; best effort (the backend may already have
    /// rolled back the whole transaction, which then fails to commit).
    func rollbackToSavepoint(_ name: String)
    /// A number that changes whenever another connection commits: while it stays the same, rows
    /// checked earlier are still as they were (this connection's own writes keep the digest current).
    func changeCounter() throws(SecureStoreError) -> Int64
    /// ``changeCounter()`` as of the rows the last read outside a transaction saw, when the backend
    /// knows it without reading the store again; `nil` when it does not (then the caller checks the
    /// rows and reads again).
    func changeCounterOfLastRead() -> Int64?
    /// A number that moves with every commit to the store, this connection's and every other's, read
    /// now (outside a transaction); `nil` when the backend cannot tell without reading rows. Unless
    /// `waiting`, a lock it would have to wait for fails it as busy at once.
    func changeMark(waiting: Bool) throws(SecureStoreError) -> UInt64?
    /// Change marks read without this connection, so without the handle's lock (``ChangeMarkSource``);
    /// `nil` when the backend has none (then ``changeMark(waiting:)`` is asked under the lock).
    var changeMarkSource: (any ChangeMarkSource)? { get }

    /// The rows `selection` picks, in row-id order, with their index cells and the ciphertexts that
    /// `columns` names (the others left empty). Rows that cannot be read (an unknown class, a cell of
    /// the wrong type or size) are left out and counted in `unreadable`.
    func rows(_ selection: RowSelection, columns: RowColumns) throws(SecureStoreError)
        -> (rows: [ItemRow], unreadable: Int)
    /// The rows `selection` picks, read by scanning the table itself and stepping past the damage the
    /// backend can step past (a page failing its checksum), for reads that ``rows(_:columns:)`` failed
    /// as damage. `skipped` says that some rows could not be read at all: the answer may be missing rows.
    func rowsAroundDamage(_ selection: RowSelection, columns: RowColumns) throws(SecureStoreError)
        -> (rows: [ItemRow], unreadable: Int, skipped: Bool)
    /// How many rows a lookup by unique key or primary index finds, through the backend's index or,
    /// with `bypassingIndex`, by reading the table itself: a difference means a damaged index.
    func count(_ selection: RowSelection, bypassingIndex: Bool) throws(SecureStoreError) -> Int64
    /// The largest row id in use, or 0 when there are no rows.
    func newestRowID() throws(SecureStoreError) -> Int64
    /// Inserts a row. - Throws: ``SecureStoreError/duplicateItem`` when its unique key is taken.
    func insert(_ row: ItemRow) throws(SecureStoreError)
    /// Inserts a row only if its id is past every row id in use, in one atomic step; `false` (nothing
    /// written) when it is not.
    func insertIfNewest(_ row: ItemRow) throws(SecureStoreError) -> Bool
    /// Replaces the two ciphertexts of row `id`, leaving its class and index cells as they are.
    func updateCiphertexts(ofRow id: Int64, attributes: [UInt8], data: [UInt8]) throws(SecureStoreError)
    /// Replaces the index cells and both ciphertexts of the row with `row.id`.
    /// - Throws: ``SecureStoreError/duplicateItem`` when the new unique key is taken.
    func updateRow(_ row: ItemRow) throws(SecureStoreError)
    /// Deletes row `id`.
    func deleteRow(_ id: Int64) throws(SecureStoreError)
    /// Deletes, in one atomic step, the rows with exactly these index cells and class; returns their ids.
    func deleteRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError) -> [Int64]
    /// Calls `visit` with every row's id, class code and index cells (`nil` where a cell is not of the
    /// type or size the store writes).
    func forEachIndexEntry(
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?) throws(SecureStoreError) -> Void
    ) throws(SecureStoreError)

    /// The encoded rows digest, or `nil` when this store has none yet (made before the digest
    /// existed); an empty array when its row is missing.
    func loadRowsDigest() throws(SecureStoreError) -> [UInt8]?
    /// Writes the encoded rows digest inside the open write transaction.
    func storeRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError)
    /// Gives a store without a rows digest one, inside the open write transaction.
    func createRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError)

    /// Whether the backend keeps one rows digest per access group (writers of different groups then
    /// do not wait for each other) rather than one for the store. A single-writer backend (SQLite)
    /// keeps one; the group-digest operations below are used only when this is `true`.
    var digestPerGroup: Bool { get }
    /// Inside the open write transaction: locks the digest rows of `groups` (other writers of those
    /// groups wait until commit) and returns those that exist, encoded.
    func lockGroupDigests(_ groups: [BlindIndex]) throws(SecureStoreError) -> [BlindIndex: [UInt8]]
    /// Reads the digest rows of `groups` that exist (in the open snapshot, if any).
    func loadGroupDigests(_ groups: [BlindIndex]) throws(SecureStoreError) -> [BlindIndex: [UInt8]]
    /// Every digest row: its group (`nil` where the cell is not an index of the size the store writes)
    /// and its encoded digest.
    func allGroupDigests() throws(SecureStoreError) -> [(group: BlindIndex?, encoded: [UInt8])]
    /// Writes a group's digest inside the open write transaction; `created` makes its row (which then
    /// stays locked until commit).
    func storeGroupDigest(_ group: BlindIndex, _ encoded: [UInt8], created: Bool) throws(SecureStoreError)
    /// The digest of the set of groups that have a digest row, locked when `locking` (inside the open
    /// write transaction); `nil` when its row is missing.
    func loadGroupRegistry(locking: Bool) throws(SecureStoreError) -> [UInt8]?
    /// Writes the digest of the set of groups inside the open write transaction.
    func storeGroupRegistry(_ encoded: [UInt8]) throws(SecureStoreError)
    /// Deletes every group's digest row inside the open write transaction: a rotation of the master key
    /// gives every group a new index, and writes their digests again (``storeGroupDigest(_:_:created:)``).
    func deleteGroupDigests() throws(SecureStoreError)
    /// ``changeCounter()`` for one group's rows: it changes whenever another connection changed them.
    func groupChangeCounter(_ group: BlindIndex) throws(SecureStoreError) -> Int64
    /// ``forEachVersionedIndexEntry(_:)`` for the rows whose group cell is `group`.
    func forEachVersionedIndexEntry(
        inGroup group: BlindIndex,
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?, _ version: Int64?) throws(SecureStoreError)
            -> Void
    ) throws(SecureStoreError)
    /// Whether the backend gives new rows their ids (``newRowID()``) rather than the core taking one
    /// past the newest: writers that do not serialize on one lock cannot share "the newest id".
    var assignsRowIDs: Bool { get }
    /// An id no row has had (``assignsRowIDs``).
    func newRowID() throws(SecureStoreError) -> Int64

    /// The stored header, checksum and wrapped master key, or `nil` when there are none.
    func readHeaderRecord() throws(SecureStoreError) -> HeaderRecord?
    /// Replaces the header record inside the open write transaction (a passphrase change).
    func replaceHeaderRecord(_ record: HeaderRecord) throws(SecureStoreError)
    /// Removes copies of a replaced header record that the backend may keep (a log, old row versions);
    /// best effort.
    func discardReplacedHeaderRecords()
    /// The backend's own structural check: `"ok"`, or its first complaint in words.
    func structuralCheck() throws(SecureStoreError) -> String

    /// The time by the database server's clock, which every client of a shared store reads; `nil` for a
    /// backend without one (each process then goes by its own clock).
    func sharedClock() throws(SecureStoreError) -> Date?

    /// Whether rows carry a version (``ItemRow/version``), kept in a column of their own, written by
    /// every insert and update, and returned by every read.
    var rowVersions: Bool { get }
    /// The version to give a row added or changed in the open write transaction (``rowVersions``):
    /// one no row of the store ever had before (a backend may hand them out in another order than its
    /// writes commit), so that an older copy of a row, even of one deleted and added again under the
    /// same id, never carries a current version.
    func newRowVersion() -> Int64
    /// Replaces the two ciphertexts of row `id` and sets its version (``rowVersions``).
    func updateCiphertexts(ofRow id: Int64, version: Int64?, attributes: [UInt8], data: [UInt8])
        throws(SecureStoreError)
    /// ``deleteRows(exactly:itemClass:)``, with each deleted row's version.
    func deleteVersionedRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError)
        -> [(id: Int64, version: Int64?)]
    /// ``deleteRows(exactly:itemClass:)``, with each deleted row whole (its cells and both
    /// ciphertexts), for a rows digest that counts ciphertexts (``ItemKeys/digestsCiphertexts``).
    /// Called inside a write transaction.
    func deleteSealedRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError) -> [ItemRow]
    /// ``forEachIndexEntry(_:)``, with each row's version.
    func forEachVersionedIndexEntry(
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?, _ version: Int64?) throws(SecureStoreError)
            -> Void
    ) throws(SecureStoreError)
}

/// A backend whose rows carry no version needs only the unversioned operations.
extension ItemStorage {
    /// Not known without a read (a backend whose finds never need it: its rows carry versions).
    package func changeCounterOfLastRead() -> Int64? { nil }

    /// Not known without reading rows.
    package func changeMark(waiting: Bool) throws(SecureStoreError) -> UInt64? { nil }

    /// None: marks, if any, are read through the connection, under the handle's lock.
    package var changeMarkSource: (any ChangeMarkSource)? { nil }

    /// A write of the store's own begins as any other: no lock is assumed.
    package func beginOwnWrite() throws(SecureStoreError) { try beginWrite() }

    /// No lock is ever assumed.
    package func takeFailedAssumption() -> Bool { false }

    /// Every row read in one scan and picked out: a backend that cannot step past damage reads on or fails.
    package func rowsAroundDamage(_ selection: RowSelection, columns: RowColumns) throws(SecureStoreError)
        -> (rows: [ItemRow], unreadable: Int, skipped: Bool)
    {
        let (all, unreadable) = try rows(.all, columns: columns)
        return (all.filter(selection.picks), unreadable, false)
    }

    /// No server clock: each process goes by its own.
    package func sharedClock() throws(SecureStoreError) -> Date? { nil }

    /// Rows carry no version.
    package var rowVersions: Bool { false }

    /// Unused where rows carry no version.
    package func newRowVersion() -> Int64 { 1 }

    /// Replaces the ciphertexts; there is no version to set.
    package func updateCiphertexts(ofRow id: Int64, version: Int64?, attributes: [UInt8], data: [UInt8])
        throws(SecureStoreError)
    {
        try updateCiphertexts(ofRow: id, attributes: attributes, data: data)
    }

    /// The deleted rows' ids, without versions.
    package func deleteVersionedRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError)
        -> [(id: Int64, version: Int64?)]
    {
        try deleteRows(exactly: cells, itemClass: itemClass).map { ($0, nil) }
    }

    /// The rows a delete by unique key takes, read whole through ``rows(_:columns:)`` in the open write
    /// transaction, then deleted. A row deleted that the read did not give whole (an index that left it
    /// out, a cell not as the store writes it) cannot be counted out of the digest: an integrity failure,
    /// and the caller's transaction rolls back.
    package func deleteSealedRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError)
        -> [ItemRow]
    {
        let read = try rows(.unique(primary: cells.primary, unique: cells.unique), columns: [.attributes, .data]).rows
        var deleted: [ItemRow] = []
        for id in try deleteRows(exactly: cells, itemClass: itemClass) {
            guard let row = read.first(where: { $0.id == id }) else { throw RowsDigest.mismatch }
            deleted.append(row)
        }
        return deleted
    }

    /// Every row's index entry, without versions.
    package func forEachVersionedIndexEntry(
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?, _ version: Int64?) throws(SecureStoreError)
            -> Void
    ) throws(SecureStoreError) {
        try forEachIndexEntry { id, classCode, cells throws(SecureStoreError) in try visit(id, classCode, cells, nil) }
    }
}
