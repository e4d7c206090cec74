import Data
import Domain
import Foundation

/// The store's working parts behind its lock: the SQLite connection, the header and, while unlocked,
/// the keys. Every operation of ``SQLiteSecureItemStore`` runs here.
///
/// Not `Sendable`: exactly one ``SQLiteSecureItemStore`` owns an engine and touches it only inside its
/// mutex, so at most one thread uses the connection and keys at a time.
final class StoreEngine {
    let connection: SQLiteConnection
    let options: StoreOptions
    let groups: [String]
    var header: StoreHeader
    private(set) var keys: ItemKeys?
    private var groupIndexes: [[UInt8]] = []
    private var transactionDepth = 0

    private static let columns = "id, class, grp, uniq, prim, attrs, data"

    init(connection: SQLiteConnection, options: StoreOptions, groups: [String], header: StoreHeader) {
        self.connection = connection
        self.options = options
        self.groups = groups
        self.header = header
    }

    deinit { keys?.wipe() }

    // MARK: Keys

    /// Installs unlocked keys and precomputes the blind index of each access group.
    func install(_ newKeys: ItemKeys) throws(SecureStoreError) {
        keys?.wipe()
        keys = newKeys
        groupIndexes = try groups.map { group throws(SecureStoreError) in try newKeys.groupIndex(group) }
    }

    /// Wipes the keys; reads and writes fail with ``SecureStoreError/locked`` until unlocked again.
    func lock() {
        keys?.wipe()
        keys = nil
        groupIndexes = []
    }

    private func unlockedKeys() throws(SecureStoreError) -> ItemKeys {
        guard let keys else { throw .locked }
        return keys
    }

    // MARK: Transactions

    /// Runs `body` inside one `BEGIN IMMEDIATE` transaction, taking the write lock before anything is
    /// read, so read-then-write is never interleaved with another writer.
    ///
    /// Inside a transaction already open, `body` runs in a savepoint: when it throws, all of its own
    /// writes are undone (an update that clashes on its second item leaves the first as it was) while
    /// the enclosing transaction's earlier writes stay, for the caller to commit or roll back.
    func write<Result>(_ body: () throws -> Result) throws -> Result {
        if transactionDepth > 0 {
            // SQLite rolls a whole transaction back on some failures (disk full, I/O error). A savepoint
            // opened now would start a new, separate transaction and commit on release: refuse instead.
            guard connection.isInTransaction else {
                throw SecureStoreError.storage(
                    code: 0, message: "the transaction was rolled back after an earlier failure; run it again")
            }
            let savepoint = "nested\(transactionDepth)"
            try connection.execute("SAVEPOINT \(savepoint)")
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            do {
                let result = try body()
                try connection.execute("RELEASE \(savepoint)")
                return result
            } catch {
                // Fails only when SQLite already rolled back the whole transaction; COMMIT then fails too.
                try? connection.execute("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
                throw error
            }
        }
        try connection.execute("BEGIN IMMEDIATE")
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// ``write(_:)`` for bodies that throw only store errors.
    func writeTyped<Result>(_ body: () throws(SecureStoreError) -> Result) throws(SecureStoreError) -> Result {
        do {
            return try write(body)
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw .storage(code: 0, message: "unexpected failure: \(type(of: error))")
        }
    }

    // MARK: Operations

    func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        let keys = try unlockedKeys()
        try checkWritable(attributes)
        let group = try resolveGroupForWrite(attributes.accessGroup)
        var full = attributes
        full.setStoreManaged(.accessGroup, .string(groups[group]))
        let now = roundedNow()
        full.setStoreManaged(.creationDate, .date(now))
        full.setStoreManaged(.modificationDate, .date(now))
        try writeTyped { () throws(SecureStoreError) in
            try insert(full, data: data, group: group, keys: keys)
        }
    }

    func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        let keys = try unlockedKeys()
        var results: [StoredItem] = []
        try forEachMatch(query, keys: keys, decryptAttributes: parts.contains(.attributes)) {
            (row, attributes) throws(SecureStoreError) in
            let data = parts.contains(.data) ? try openData(row, keys: keys) : nil
            // Attributes decrypted only to check the match are not part of the answer unless asked for.
            results.append(
                StoredItem(
                    itemClass: row.itemClass, attributes: parts.contains(.attributes) ? attributes : nil, data: data))
            return limit == .all
        }
        guard !results.isEmpty else { throw .itemNotFound }
        return results
    }

    func update(_ query: ItemAttributes, attributes changes: ItemAttributes?, data: SecretBytes?)
        throws(SecureStoreError) -> Int
    {
        let keys = try unlockedKeys()
        if let changes {
            guard changes.itemClass == query.itemClass else { throw .classMismatch(query.itemClass, changes.itemClass) }
            try checkWritable(changes)
            if let group = changes.accessGroup { _ = try resolveGroupForWrite(group) }
        }
        return try writeTyped { () throws(SecureStoreError) -> Int in
            var matches: [(ItemRow, ItemAttributes)] = []
            try forEachMatch(query, keys: keys, decryptAttributes: true) { (row, attributes) throws(SecureStoreError) in
                matches.append((row, attributes!))
                return true
            }
            guard !matches.isEmpty else { throw .itemNotFound }
            for (row, old) in matches {
                try rewrite(row, old: old, changes: changes, data: data, keys: keys)
            }
            return matches.count
        }
    }

    func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        let keys = try unlockedKeys()
        return try writeTyped { () throws(SecureStoreError) -> Int in
            var ids: [Int64] = []
            // Every row is authenticated before it is deleted: a swapped index cell must not make a
            // delete remove another item.
            try forEachMatch(query, keys: keys, decryptAttributes: true) { (row, _) throws(SecureStoreError) in
                ids.append(row.id)
                return true
            }
            let statement = try connection.prepared("DELETE FROM items WHERE id = ?")
            for id in ids {
                statement.bind(id, at: 1)
                try statement.run()
            }
            return ids.count
        }
    }

    func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> AddOrUpdateOutcome {
        let keys = try unlockedKeys()
        try checkWritable(attributes)
        let group = try resolveGroupForWrite(attributes.accessGroup)
        var full = attributes
        full.setStoreManaged(.accessGroup, .string(groups[group]))
        return try writeTyped { () throws(SecureStoreError) -> AddOrUpdateOutcome in
            let unique = try keys.uniqueIndex(full, group: groupIndexes[group])
            if let row = try fetchRows("SELECT \(Self.columns) FROM items WHERE uniq = ?", [unique]).first {
                let old = try openAttributes(row, keys: keys)
                try rewrite(row, old: old, changes: full, data: data, keys: keys)
                return .updated
            }
            let now = roundedNow()
            full.setStoreManaged(.creationDate, .date(now))
            full.setStoreManaged(.modificationDate, .date(now))
            try insert(full, data: data, group: group, keys: keys)
            return .added
        }
    }

    // MARK: Maintenance

    /// Decrypts and checks every item in the file (every group), counting sound and damaged ones.
    func verify() throws(SecureStoreError) -> VerifyReport {
        let keys = try unlockedKeys()
        var sound = 0
        let (rows, unknownClasses) = try fetchRowsCountingUnknownClasses(
            "SELECT \(Self.columns) FROM items ORDER BY id", [])
        var damaged = unknownClasses
        for row in rows {
            do {
                let attributes = try openAttributes(row, keys: keys)
                let group = try keys.groupIndex(attributes.accessGroup ?? "")
                guard group == row.group,
                    try keys.uniqueIndex(attributes, group: group) == row.unique,
                    try keys.primaryIndex(row.itemClass, value: attributes[row.itemClass.primaryAttribute], group: group)
                        == row.primary
                else { throw SecureStoreError.integrityFailure("indexes disagree") }
                _ = try openData(row, keys: keys)
                sound += 1
            } catch {
                damaged += 1
            }
        }
        let check = try connection.scalarText("PRAGMA quick_check") ?? "no answer"
        return VerifyReport(soundItems: sound, damagedItems: damaged, databaseCheck: check)
    }

    // MARK: Matching

    /// Calls `visit` for each item of the handle's groups that matches `query`, in row order, until it
    /// returns `false`. Attributes are decrypted when asked for or needed to check the match.
    private func forEachMatch(
        _ query: ItemAttributes, keys: ItemKeys, decryptAttributes: Bool,
        _ visit: (ItemRow, ItemAttributes?) throws(SecureStoreError) -> Bool
    ) throws(SecureStoreError) {
        let groupPositions = try resolveGroupsForRead(query.accessGroup)
        let itemClass = query.itemClass
        let named = Set(query.values.keys).subtracting([.accessGroup])
        let uniqueNames = Set(itemClass.uniqueKey).subtracting([.accessGroup])
        let byUnique = uniqueNames.isSubset(of: named)
        let byPrimary = !byUnique && named.contains(itemClass.primaryAttribute)
        // The unique index answers exactly for its attributes; anything else is checked on the
        // decrypted attributes (the primary index is truncated, so it is always checked).
        let mustCheck = byUnique ? !named.isSubset(of: uniqueNames) : !named.isEmpty
        for position in groupPositions {
            let group = groupIndexes[position]
            var rows: [ItemRow]
            if byUnique {
                let unique = try keys.uniqueIndex(query, group: group)
                rows = try fetchRows("SELECT \(Self.columns) FROM items WHERE uniq = ?", [unique])
                // The unique index covers the class and group: a row it finds with another class or
                // group, or another index value, was edited (or SQLite's index is damaged).
                guard rows.allSatisfy({ $0.unique == unique && $0.itemClass == itemClass && $0.group == group }) else {
                    throw .integrityFailure("an item's row disagrees with its unique index")
                }
            } else if byPrimary {
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                rows = try fetchRows("SELECT \(Self.columns) FROM items WHERE prim = ? ORDER BY id", [primary])
                guard rows.allSatisfy({ $0.primary == primary }) else {
                    throw .integrityFailure("an item's row disagrees with its primary index")
                }
                // The primary index is short: another class or group may share a value.
                rows.removeAll { $0.itemClass != itemClass || $0.group != group }
            } else {
                rows = try fetchRows(
                    "SELECT \(Self.columns) FROM items WHERE class = ? AND grp = ? ORDER BY id", [group],
                    itemClass: itemClass)
            }
            for row in rows {
                var attributes: ItemAttributes?
                if mustCheck || decryptAttributes {
                    attributes = try openAttributes(row, keys: keys)
                    if mustCheck && !attributes!.matches(query) { continue }
                }
                if try !visit(row, attributes) { return }
            }
        }
    }

    /// The rows `sql` selects.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when a row has a class this version does not know.
    private func fetchRows(_ sql: String, _ blobs: [[UInt8]], itemClass: ItemClass? = nil) throws(SecureStoreError)
        -> [ItemRow]
    {
        let (rows, unknownClasses) = try fetchRowsCountingUnknownClasses(sql, blobs, itemClass: itemClass)
        guard unknownClasses == 0 else { throw .integrityFailure("an item has an unknown class") }
        return rows
    }

    /// The rows `sql` selects, leaving out (and counting) rows whose class this version does not know.
    private func fetchRowsCountingUnknownClasses(_ sql: String, _ blobs: [[UInt8]], itemClass: ItemClass? = nil)
        throws(SecureStoreError) -> (rows: [ItemRow], unknownClasses: Int)
    {
        let statement = try connection.prepared(sql)
        defer { statement.reset() }
        var parameter: Int32 = 1
        if let itemClass {
            statement.bind(Int64(itemClass.rawValue), at: parameter)
            parameter += 1
        }
        for blob in blobs {
            statement.bind(blob, at: parameter)
            parameter += 1
        }
        var rows: [ItemRow] = []
        var unknownClasses = 0
        while try statement.step() {
            guard let itemClass = ItemClass(rawValue: UInt8(clamping: statement.int64(at: 1))) else {
                unknownClasses += 1
                continue
            }
            let row = ItemRow(
                id: statement.int64(at: 0), itemClass: itemClass, group: statement.bytes(at: 2),
                unique: statement.bytes(at: 3), primary: statement.bytes(at: 4),
                sealedAttributes: statement.bytes(at: 5), sealedData: statement.bytes(at: 6))
            // The index cells are concatenated into the additional data: fixed sizes keep that unambiguous.
            guard row.group.count == ItemKeys.indexBytes, row.unique.count == ItemKeys.indexBytes,
                row.primary.count == ItemKeys.primaryIndexBytes
            else { throw .integrityFailure("an item's index cells have the wrong size") }
            rows.append(row)
        }
        return (rows, unknownClasses)
    }

    // MARK: Sealing

    private func insert(_ full: ItemAttributes, data: SecretBytes, group: Int, keys: ItemKeys) throws(SecureStoreError)
    {
        let next = try connection.prepared(
            "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'items'), 0) + 1")
        _ = try next.step()
        let id = next.int64(at: 0)
        next.reset()
        var row = try indexedRow(id: id, full, group: groupIndexes[group], keys: keys)
        try seal(&row, attributes: full, data: data, keys: keys)
        let statement = try connection.prepared(
            "INSERT INTO items (id, class, grp, uniq, prim, attrs, data) VALUES (?, ?, ?, ?, ?, ?, ?)")
        statement.bind(row.id, at: 1)
        statement.bind(Int64(row.itemClass.rawValue), at: 2)
        statement.bind(row.group, at: 3)
        statement.bind(row.unique, at: 4)
        statement.bind(row.primary, at: 5)
        statement.bind(row.sealedAttributes, at: 6)
        statement.bind(row.sealedData, at: 7)
        try statement.run()
    }

    /// Applies `changes` (and new `data`) to one item; re-encrypts its data when its indexes moved.
    private func rewrite(
        _ row: ItemRow, old: ItemAttributes, changes: ItemAttributes?, data: SecretBytes?, keys: ItemKeys
    ) throws(SecureStoreError) {
        var merged = old
        for (name, value) in changes?.values ?? [:] { merged.setStoreManaged(name, value) }
        merged.setStoreManaged(.modificationDate, .date(roundedNow()))
        let groupPosition = try resolveGroupForWrite(merged.accessGroup)
        var newRow = try indexedRow(id: row.id, merged, group: groupIndexes[groupPosition], keys: keys)
        let indexesMoved = newRow.group != row.group || newRow.unique != row.unique || newRow.primary != row.primary
        if let data {
            try seal(&newRow, attributes: merged, data: data, keys: keys)
        } else if indexesMoved {
            try seal(&newRow, attributes: merged, data: try openData(row, keys: keys), keys: keys)
        } else {
            newRow.sealedData = row.sealedData
            try seal(&newRow, attributes: merged, data: nil, keys: keys)
        }
        let statement = try connection.prepared(
            "UPDATE items SET grp = ?, uniq = ?, prim = ?, attrs = ?, data = ? WHERE id = ?")
        statement.bind(newRow.group, at: 1)
        statement.bind(newRow.unique, at: 2)
        statement.bind(newRow.primary, at: 3)
        statement.bind(newRow.sealedAttributes, at: 4)
        statement.bind(newRow.sealedData, at: 5)
        statement.bind(row.id, at: 6)
        try statement.run()
    }

    private func indexedRow(id: Int64, _ attributes: ItemAttributes, group: [UInt8], keys: ItemKeys)
        throws(SecureStoreError) -> ItemRow
    {
        ItemRow(
            id: id, itemClass: attributes.itemClass, group: group,
            unique: try keys.uniqueIndex(attributes, group: group),
            primary: try keys.primaryIndex(
                attributes.itemClass, value: attributes[attributes.itemClass.primaryAttribute], group: group))
    }

    /// Encrypts the attributes and, when given, the padded data into `row`, bound to its indexes.
    private func seal(_ row: inout ItemRow, attributes: ItemAttributes, data: SecretBytes?, keys: ItemKeys)
        throws(SecureStoreError)
    {
        var encoded = AttributeCodec.encode(attributes)
        // Padded like the data, so the ciphertext shows only a length bucket of the names it holds.
        let paddedAttributes = Sodium.pad(SecretBytes(encoded), block: ItemRow.paddingBlock)
        encoded.withUnsafeMutableBytes { SecretBytes.wipe($0) }
        row.sealedAttributes = try paddedAttributes.withUnsafeBytes { raw throws(SecureStoreError) in
            try Sodium.seal(
                raw, additionalData: keys.additionalData(column: ItemRow.attributesColumn, row: row),
                key: keys.attributes)
        }
        if let data {
            let padded = Sodium.pad(data, block: ItemRow.paddingBlock)
            row.sealedData = try padded.withUnsafeBytes { raw throws(SecureStoreError) in
                try Sodium.seal(raw, additionalData: keys.additionalData(column: ItemRow.dataColumn, row: row), key: keys.data)
            }
        }
    }

    private func openAttributes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> ItemAttributes {
        let padded = try Sodium.open(
            row.sealedAttributes, additionalData: keys.additionalData(column: ItemRow.attributesColumn, row: row),
            key: keys.attributes, what: "an item's attributes")
        let plain = try Sodium.unpad(padded, block: ItemRow.paddingBlock)
        let attributes = try plain.withUnsafeBytes { raw throws(SecureStoreError) in try AttributeCodec.decode(raw) }
        guard attributes.itemClass == row.itemClass else { throw .integrityFailure("an item's class was changed") }
        return attributes
    }

    private func openData(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        let padded = try Sodium.open(
            row.sealedData, additionalData: keys.additionalData(column: ItemRow.dataColumn, row: row), key: keys.data,
            what: "an item's data")
        return try Sodium.unpad(padded, block: ItemRow.paddingBlock)
    }

    // MARK: Groups and attributes

    private func resolveGroupForWrite(_ group: String?) throws(SecureStoreError) -> Int {
        guard let group else { return 0 }
        guard let position = groups.firstIndex(of: group) else { throw .missingEntitlement(accessGroup: group) }
        return position
    }

    private func resolveGroupsForRead(_ group: String?) throws(SecureStoreError) -> [Int] {
        guard let group else { return Array(groups.indices) }
        return [try resolveGroupForWrite(group)]
    }

    /// Refuses attributes a caller may not write: any the class does not allow or of the wrong kind
    /// (``ItemAttributes/setStoreManaged(_:_:)`` skips those checks, and an item written with them could
    /// never be decoded again), and the read-only dates.
    private func checkWritable(_ attributes: ItemAttributes) throws(SecureStoreError) {
        _ = try ItemAttributes(attributes.itemClass, attributes.values)
        if let name = attributes.values.keys.sorted().first(where: \.isReadOnly) { throw .readOnlyAttribute(name) }
    }

    private func roundedNow() -> Date {
        Date(timeIntervalSince1970: (options.now().timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
