import Data
@testable import MemoryStore
import StoreCore
import Testing

/// The in-memory adapter against the port's contract, below the engine: transactions, savepoints,
/// the change counter, the unique constraint, row ids and the write lock.
@Suite struct MemoryItemStorageTests {
    private let database = MemoryDatabase()

    private func connection(busyTimeoutMilliseconds: Int32 = 1000) -> MemoryItemStorage {
        MemoryItemStorage(database: database, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    /// An index cell of `count` bytes, each `byte`.
    private func cell(_ byte: UInt8, count: Int = ItemKeys.indexBytes) -> BlindIndex {
        var index = BlindIndex(count: count)
        _ = index.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: byte) }
        return index
    }

    private func row(_ id: Int64, unique: UInt8, primary: UInt8 = 1) -> ItemRow {
        ItemRow(
            id: id, itemClass: .genericPassword, group: cell(9), unique: cell(unique),
            primary: cell(primary, count: ItemKeys.primaryIndexBytes), sealedAttributes: [UInt8(id)], sealedData: [2])
    }

    @Test func aCommitIsSeenByOtherConnectionsAndARollbackByNone() throws {
        let writer = connection()
        let reader = connection()
        try writer.beginWrite()
        try writer.insert(row(1, unique: 1))
        #expect(try writer.rows(.all, columns: []).rows.map(\.id) == [1])
        #expect(try reader.rows(.all, columns: []).rows.isEmpty)
        try writer.commit()
        #expect(try reader.rows(.all, columns: [.attributes]).rows.map(\.sealedAttributes) == [[1]])

        try writer.beginWrite()
        try writer.deleteRow(1)
        writer.rollback()
        #expect(!writer.isInTransaction)
        #expect(try reader.newestRowID() == 1)
        // A read transaction keeps its snapshot while another connection commits.
        try reader.beginRead()
        try writer.beginWrite()
        try writer.insert(row(2, unique: 2))
        try writer.commit()
        #expect(try reader.newestRowID() == 1)
        try reader.commit()
        #expect(try reader.newestRowID() == 2)
    }

    @Test func theChangeCounterMovesOnlyForAnotherConnectionsCommits() throws {
        let first = connection()
        let second = connection()
        let before = try first.changeCounter()
        try first.beginWrite()
        try first.insert(row(1, unique: 1))
        try first.commit()
        #expect(try first.changeCounter() == before)
        #expect(try second.changeCounter() != before)
        // A write transaction that changed nothing is not a change.
        let seen = try first.changeCounter()
        try second.beginWrite()
        try second.commit()
        #expect(try first.changeCounter() == seen)
    }

    @Test func aSavepointRolledBackUndoesOnlyItsOwnWrites() throws {
        let storage = connection()
        try storage.beginWrite()
        try storage.insert(row(1, unique: 1))
        try storage.savepoint("nested1")
        try storage.insert(row(2, unique: 2))
        try storage.storeRowsDigest([7])
        storage.rollbackToSavepoint("nested1")
        try storage.savepoint("nested1")
        try storage.insert(row(3, unique: 3))
        try storage.releaseSavepoint("nested1")
        try storage.commit()
        #expect(try storage.rows(.all, columns: []).rows.map(\.id) == [1, 3])
        #expect(try storage.loadRowsDigest() == nil)
    }

    @Test func theUniqueConstraintIsADuplicateItemAndRowIdsOnlyGrowWhenNewest() throws {
        let storage = connection()
        try storage.beginWrite()
        try storage.insert(row(1, unique: 1))
        try storage.insert(row(2, unique: 2))
        #expect(throws: SecureStoreError.duplicateItem) { try storage.insert(row(3, unique: 1)) }
        #expect(throws: SecureStoreError.duplicateItem) { try storage.updateRow(row(2, unique: 1)) }
        // The same unique cell under another primary cell is another key.
        try storage.insert(row(3, unique: 1, primary: 2))
        #expect(try storage.insertIfNewest(row(3, unique: 4)) == false)
        #expect(try storage.insertIfNewest(row(5, unique: 4)) == true)
        #expect(try storage.newestRowID() == 5)
        #expect(try storage.deleteRows(exactly: row(0, unique: 1).cells, itemClass: .genericPassword) == [1])
        #expect(try storage.deleteRows(exactly: row(0, unique: 2).cells, itemClass: .internetPassword).isEmpty)
        try storage.commit()
        #expect(try storage.count(.primary(cell(1, count: ItemKeys.primaryIndexBytes)), bypassingIndex: true) == 2)
    }

    @Test func aWriteOutsideAWriteTransactionIsRefused() throws {
        let storage = connection()
        let outside = #expect(throws: SecureStoreError.self) { try storage.insert(row(1, unique: 1)) }
        #expect(outside?.storageKind == .misuse)
        try storage.beginRead()
        let inRead = #expect(throws: SecureStoreError.self) { try storage.deleteRow(1) }
        #expect(inRead?.storageKind == .misuse)
        storage.rollback()
        #expect(try storage.rows(.all, columns: []).rows.isEmpty)
    }

    @Test func aSecondWriterWaitsForTheLockAndGivesUpAsBusy() throws {
        let first = connection()
        let second = connection(busyTimeoutMilliseconds: 50)
        try first.beginWrite()
        let busy = #expect(throws: SecureStoreError.self) { try second.beginWrite() }
        #expect(busy?.storageKind == .busy)
        first.rollback()
        try second.beginWrite()
        try second.commit()
    }
}

extension SecureStoreError {
    /// The kind of a storage failure, or `nil` for any other error.
    fileprivate var storageKind: StorageFailure.Kind? {
        if case .storage(let failure) = self { failure.kind } else { nil }
    }
}
