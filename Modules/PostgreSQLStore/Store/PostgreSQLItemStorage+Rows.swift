import Data
import StoreCore

/// The rows of `items` and the header row: the reads and writes of the port.
extension PostgreSQLItemStorage {
    // MARK: Rows

    func rows(_ selection: RowSelection, columns: RowColumns) throws(SecureStoreError) -> (rows: [ItemRow], unreadable: Int) {
        if let cached = cachedRow(selection) { return ([cached], 0) }
        let cells =
            "id, class, grp, uniq, prim, \(columns.contains(.attributes) ? "attrs" : "NULL::bytea"), "
            + "\(columns.contains(.data) ? "data" : "NULL::bytea"), ver FROM \(schema).items"
        let result: PostgreSQLResult
        switch selection {
        case .unique(let primary, let unique):
            result = try run("SELECT \(cells) WHERE prim = $1 AND uniq = $2", [.bytes(primary.bytes), .bytes(unique.bytes)])
        case .primary(let primary):
            result = try run("SELECT \(cells) WHERE prim = $1 ORDER BY id", [.bytes(primary.bytes)])
        case .classAndGroup(let itemClass, let group):
            result = try run(
                "SELECT \(cells) WHERE grp = $1 AND class = $2 ORDER BY id",
                [.bytes(group.bytes), .int32(Int32(itemClass.rawValue))])
        case .all:
            result = try run("SELECT \(cells) ORDER BY id")
        }
        var rows: [ItemRow] = []
        rows.reserveCapacity(result.rowCount)
        var unreadable = 0
        for index in 0..<result.rowCount {
            let classCode = try read { () throws(PostgreSQLError) in try result.int32(index, 1) }
            guard let itemClass = ItemClass(rawValue: UInt8(clamping: classCode)), classCode >= 0,
                let indexCells = try indexCells(result, row: index, from: 2)
            else {
                unreadable += 1
                continue
            }
            let (id, attributes, data, version) = try read { () throws(PostgreSQLError) in
                (
                    try result.int64(index, 0), columns.contains(.attributes) ? try result.bytes(index, 5) : [],
                    columns.contains(.data) ? try result.bytes(index, 6) : [], try result.int64(index, 7)
                )
            }
            rows.append(
                ItemRow(
                    id: id, itemClass: itemClass, group: indexCells.group, unique: indexCells.unique,
                    primary: indexCells.primary, sealedAttributes: attributes, sealedData: data, version: version))
        }
        if writing { noteRowsRead(rows) }
        return (rows, unreadable)
    }

    /// The three index cells in columns `first`, `first + 1` and `first + 2`, or `nil` when one is not
    /// of the size the store writes.
    private func indexCells(_ result: PostgreSQLResult, row: Int, from first: Int) throws(SecureStoreError) -> IndexCells? {
        let (group, unique, primary) = try read { () throws(PostgreSQLError) in
            (try result.bytes(row, first), try result.bytes(row, first + 1), try result.bytes(row, first + 2))
        }
        guard let group = Self.blindIndex(group, count: ItemKeys.indexBytes),
            let unique = Self.blindIndex(unique, count: ItemKeys.indexBytes),
            let primary = Self.blindIndex(primary, count: ItemKeys.primaryIndexBytes)
        else { return nil }
        return IndexCells(group: group, unique: unique, primary: primary)
    }

    private static func blindIndex(_ bytes: [UInt8], count: Int) -> BlindIndex? {
        bytes.withUnsafeBytes { BlindIndex(copying: $0, expectedCount: count) }
    }

    func count(_ selection: RowSelection, bypassingIndex: Bool) throws(SecureStoreError) -> Int64 {
        // `prim || ''::bytea` is the same value, but no index can answer for it: the table is read.
        let prim = bypassingIndex ? "prim || ''::bytea" : "prim"
        let uniq = bypassingIndex ? "uniq || ''::bytea" : "uniq"
        let result: PostgreSQLResult
        switch selection {
        case .unique(let primary, let unique):
            result = try run(
                "SELECT count(*) FROM \(schema).items WHERE \(prim) = $1 AND \(uniq) = $2",
                [.bytes(primary.bytes), .bytes(unique.bytes)])
        case .primary(let primary):
            result = try run("SELECT count(*) FROM \(schema).items WHERE \(prim) = $1", [.bytes(primary.bytes)])
        case .classAndGroup, .all:
            preconditionFailure("only lookups through an index are counted both ways")
        }
        return try read { () throws(PostgreSQLError) in try result.int64(0, 0) }
    }

    func newestRowID() throws(SecureStoreError) -> Int64 {
        let result = try run("SELECT coalesce(max(id), 0) FROM \(schema).items")
        return try read { () throws(PostgreSQLError) in try result.int64(0, 0) }
    }

    func insert(_ row: ItemRow) throws(SecureStoreError) {
        try deferWrite(
            insertSQL, Self.parameters(row),
            conditional: "INSERT INTO \(schema).items (id, class, grp, uniq, prim, attrs, data, ver) "
                + "SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM locked")
        noteRowWritten(row.group, RowKey(primary: row.primary, unique: row.unique), row)
    }

    func insertIfNewest(_ row: ItemRow) throws(SecureStoreError) -> Bool {
        rowCacheInvalid = true
        let result = try change(
            "INSERT INTO \(schema).items (id, class, grp, uniq, prim, attrs, data, ver) SELECT $1, $2, $3, $4, $5, $6, $7, $8 "
                + "WHERE (SELECT coalesce(max(id), 0) FROM \(schema).items) < $1",
            Self.parameters(row))
        return result.affectedRows == 1
    }

    func updateCiphertexts(ofRow id: Int64, attributes: [UInt8], data: [UInt8]) throws(SecureStoreError) {
        rowCacheInvalid = true
        try change("UPDATE \(schema).items SET attrs = $1, data = $2 WHERE id = $3", [.bytes(attributes), .bytes(data), .int64(id)])
    }

    func updateCiphertexts(ofRow id: Int64, version: Int64?, attributes: [UInt8], data: [UInt8]) throws(SecureStoreError) {
        try deferWrite(
            "UPDATE \(schema).items SET attrs = $1, data = $2, ver = $3 WHERE id = $4",
            [.bytes(attributes), .bytes(data), .int64(version ?? 1), .int64(id)],
            conditional: "UPDATE \(schema).items SET attrs = $1, data = $2, ver = $3 FROM locked WHERE items.id = $4")
        var newRow = transactionRows[id]
        newRow?.sealedAttributes = attributes
        newRow?.sealedData = data
        newRow?.version = version
        noteRowRewritten(id, as: newRow)
    }

    func updateRow(_ row: ItemRow) throws(SecureStoreError) {
        try deferWrite(
            "UPDATE \(schema).items SET grp = $1, uniq = $2, prim = $3, attrs = $4, data = $5, ver = $6 WHERE id = $7",
            [
                .bytes(row.group.bytes), .bytes(row.unique.bytes), .bytes(row.primary.bytes), .bytes(row.sealedAttributes),
                .bytes(row.sealedData), .int64(row.version ?? 1), .int64(row.id),
            ])
        noteRowRewritten(row.id, as: row)
    }

    func deleteRow(_ id: Int64) throws(SecureStoreError) {
        try deferWrite(
            "DELETE FROM \(schema).items WHERE id = $1", [.int64(id)],
            conditional: "DELETE FROM \(schema).items USING locked WHERE items.id = $1")
        noteRowRewritten(id, as: nil)
    }

    func deleteRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError) -> [Int64] {
        try deleteVersionedRows(exactly: cells, itemClass: itemClass).map(\.id)
    }

    func deleteVersionedRows(exactly cells: IndexCells, itemClass: ItemClass) throws(SecureStoreError)
        -> [(id: Int64, version: Int64?)]
    {
        let key = RowKey(primary: cells.primary, unique: cells.unique)
        if let row = cachedRow(.unique(primary: cells.primary, unique: cells.unique)), row.itemClass == itemClass,
            row.group == cells.group
        {
            // Under an assumed lock of its group, the row this handle left: deleted by id with the commit.
            try deleteRow(row.id)
            return [(row.id, row.version)]
        }
        noteRowWritten(cells.group, key, nil)
        let result = try change(
            "DELETE FROM \(schema).items WHERE prim = $1 AND uniq = $2 AND class = $3 AND grp = $4 RETURNING id, ver",
            [.bytes(cells.primary.bytes), .bytes(cells.unique.bytes), .int32(Int32(itemClass.rawValue)), .bytes(cells.group.bytes)])
        return try read { () throws(PostgreSQLError) in
            try (0..<result.rowCount).map { row throws(PostgreSQLError) -> (id: Int64, version: Int64?) in
                (try result.int64(row, 0), try result.int64(row, 1))
            }
        }
    }

    func forEachIndexEntry(
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?) throws(SecureStoreError) -> Void
    ) throws(SecureStoreError) {
        try forEachVersionedIndexEntry { id, classCode, cells, _ throws(SecureStoreError) in try visit(id, classCode, cells) }
    }

    func forEachVersionedIndexEntry(
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?, _ version: Int64?) throws(SecureStoreError)
            -> Void
    ) throws(SecureStoreError) {
        try visitIndexEntries(try run("SELECT id, class, grp, uniq, prim, ver FROM \(schema).items"), visit)
    }

    /// Calls `visit` with each row of `result` (id, class, grp, uniq, prim, ver).
    func visitIndexEntries(
        _ result: PostgreSQLResult,
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?, _ version: Int64?) throws(SecureStoreError)
            -> Void
    ) throws(SecureStoreError) {
        for row in 0..<result.rowCount {
            let (id, classCode, version) = try read { () throws(PostgreSQLError) in
                (try result.int64(row, 0), Int64(try result.int32(row, 1)), try result.int64(row, 5))
            }
            try visit(id, classCode, try indexCells(result, row: row, from: 2), version)
        }
    }

    // MARK: Header and maintenance

    func readHeaderRecord() throws(SecureStoreError) -> HeaderRecord? {
        let result = try run("SELECT header, checksum, wrapped_key FROM \(schema).meta WHERE id = 1")
        guard result.rowCount == 1 else { return nil }
        return try read { () throws(PostgreSQLError) in
            HeaderRecord(header: try result.bytes(0, 0), checksum: try result.bytes(0, 1), wrappedKey: try result.bytes(0, 2))
        }
    }

    func replaceHeaderRecord(_ record: HeaderRecord) throws(SecureStoreError) {
        try run(
            "UPDATE \(schema).meta SET header = $1, checksum = $2, wrapped_key = $3 WHERE id = 1",
            [.bytes(record.header), .bytes(record.checksum), .bytes(record.wrappedKey)])
    }

    /// Asks the server to reclaim the old header row's space now rather than at its next autovacuum;
    /// the server's write-ahead log and any backup still hold the old wrapped key (under the old key).
    func discardReplacedHeaderRecords() {
        try? connection.execute("VACUUM \(schema).meta")
    }

    /// PostgreSQL checks its own pages (with data checksums on) and indexes as it reads them; the rows
    /// digest check that ``StoreEngine/verify()`` adds is what finds rows edited behind the store.
    func structuralCheck() throws(SecureStoreError) -> String { "ok" }
}
