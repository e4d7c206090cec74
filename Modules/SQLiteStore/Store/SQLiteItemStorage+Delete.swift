import Data
import StoreCore

/// Deleting rows: by row id, and by exact index cells and class (a delete by unique key).
extension SQLiteItemStorage {
    /// Deletes row `id`.
    func deleteRow(_ id: Int64) throws(SecureStoreError) {
        let delete = try statement(.delete)
        delete.bind(id, at: 1)
        try delete.run()
    }

    /// Deletes the rows with exactly these index cells and class; returns their ids.
    func deleteRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError) -> [Int64] {
        try deleteRows(exactly: cells, itemClass: itemClass, columns: [], making: { $0.int64(at: 0) }, id: { $0 })
    }

    /// ``deleteRows(exactly:itemClass:)`` with each row's version: none, SQLite keeps no versions. Made
    /// here in one array (the protocol's default built the ids, then a second array of pairs: about 500
    /// instructions a delete).
    func deleteVersionedRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError)
        -> [(id: Int64, version: Int64?)]
    {
        try deleteRows(
            exactly: cells, itemClass: itemClass, columns: [], making: { (id: $0.int64(at: 0), version: nil) },
            id: { $0.id })
    }

    /// ``deleteRows(exactly:itemClass:)`` with each deleted row whole, its ciphertexts read by the same
    /// statement that finds it, for a rows digest that counts them (format 4). Only inside a write
    /// transaction (the engine's), as the port says.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` for a row whose cells are not as the store
    ///   writes them: its hash cannot be counted out of the digest (nothing is deleted inside the
    ///   engine's transaction, which then rolls back).
    func deleteSealedRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError) -> [ItemRow] {
        guard connection.isInTransaction else {
            throw .storage(.store("rows to count out of the digest are deleted inside a transaction", kind: .misuse))
        }
        let columns: RowColumns = [.attributes, .data]
        return try deleteRows(
            exactly: cells, itemClass: itemClass, columns: columns,
            making: { statement throws(SecureStoreError) in
                guard let row = itemRow(statement, columns: columns) else { throw RowsDigest.mismatch }
                return row
            }, id: { $0.id })
    }

    /// Deletes the rows with exactly these index cells and class, in one atomic step; returns what
    /// `making` makes of each one, read with the ciphertexts in `columns` (the id alone when none, as
    /// always outside a transaction), and which `id` gives back the id of.
    private func deleteRows<Deleted>(
        exactly cells: IndexCells, itemClass: ItemClass, columns: RowColumns,
        making: (SQLiteStatement) throws(SecureStoreError) -> Deleted, id: (Deleted) -> Int64
    ) throws(SecureStoreError) -> [Deleted] {
        // Inside a caller's write transaction (the engine's), a select then a delete by row id is as
        // atomic as one statement, and cheaper than DELETE … RETURNING, which fills a temporary table.
        if connection.isInTransaction {
            let select = try statement(.idsExactly, columns: columns)
            bind(cells, itemClass: itemClass, to: select)
            var rows: [Deleted] = []
            do {
                defer { select.reset() }
                while try select.step() { rows.append(try making(select)) }
            }
            for row in rows { try deleteRow(id(row)) }
            return rows
        }
        let delete = try statement(.deleteExactly)
        bind(cells, itemClass: itemClass, to: delete)
        defer { delete.reset() }
        var rows: [Deleted] = []
        while try delete.step() { rows.append(try making(delete)) }
        return rows
    }

    /// Binds the cells and class to parameters 1 (primary), 2 (unique), 3 (class) and 4 (group).
    private func bind(_ cells: IndexCells, itemClass: ItemClass, to statement: SQLiteStatement) {
        statement.bind(cells.primary, at: 1)
        statement.bind(cells.unique, at: 2)
        statement.bind(Int64(itemClass.rawValue), at: 3)
        statement.bind(cells.group, at: 4)
    }
}
