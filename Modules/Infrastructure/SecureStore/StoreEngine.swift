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
    /// Whether the rows digest exists (from the first open by this version on; see ``RowsDigest``).
    private var digestReady = false
    /// The item rows' plaintext columns as last read, the data version they were read at, and whether
    /// they matched the rows digest then. Reused until another connection commits.
    private var scanned: (dataVersion: Int64, entries: [ItemIndexEntry], intact: Bool)?
    /// Whether the write transaction in progress changed an item row (its digest is then rewritten).
    private var rowsChanged = false

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
        scanned = nil
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
            try beginWrite()
            let result = try body()
            let written = try finishWrite()
            try connection.execute("COMMIT")
            if let written { scanned = (written.dataVersion, written.entries, true) }
            return result
        } catch {
            scanned = nil
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs a read in a read transaction of its own, so that everything it reads is one snapshot (or
    /// in the transaction already open).
    private func read<Result>(_ body: () throws(SecureStoreError) -> Result) throws(SecureStoreError) -> Result {
        guard transactionDepth == 0 else { return try body() }
        try connection.execute("BEGIN")
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Rows digest

    /// Adds the rows digest to a store that has none yet: a new store, or one an earlier version made
    /// (whose rows are then taken as they are).
    func ensureRowsDigest() throws(SecureStoreError) {
        guard keys != nil else { throw .locked }
        if try !digestTableExists() {
            try writeTyped { () throws(SecureStoreError) in
                // Another process may have added it meanwhile.
                guard try !digestTableExists() else { return }
                try connection.execute(RowsDigest.schema)
                rowsChanged = true
            }
        }
        digestReady = true
    }

    /// A write may only build on intact rows: rewriting the digest over damaged ones would hide the damage.
    private func beginWrite() throws(SecureStoreError) {
        rowsChanged = false
        if digestReady, let keys {
            guard try entries(keys: keys).intact else { throw RowsDigest.mismatch }
        }
    }

    /// Rewrites the digest when item rows changed; returns what the rows are now, for reads to reuse.
    private func finishWrite() throws(SecureStoreError) -> (dataVersion: Int64, entries: [ItemIndexEntry])? {
        guard rowsChanged, let keys else { return nil }
        let entries = try scanEntries()
        let statement = try connection.prepared("INSERT OR REPLACE INTO rows_digest (id, value) VALUES (1, ?)")
        statement.bind(try RowsDigest.compute(entries, keys: keys), at: 1)
        try statement.run()
        rowsChanged = false
        return (try dataVersion(), entries)
    }

    /// The item rows' plaintext columns, and whether they match the rows digest.
    private func entries(keys: ItemKeys) throws(SecureStoreError) -> (entries: [ItemIndexEntry], intact: Bool) {
        // Inside a write that changed rows, the digest is rewritten at commit: what is there now counts.
        if transactionDepth > 0 && rowsChanged || !digestReady { return (try scanEntries(), true) }
        // The digest is read first: that starts the snapshot the data version then describes.
        let stored = try storedDigest()
        let version = try dataVersion()
        if let scanned, scanned.dataVersion == version { return (scanned.entries, scanned.intact) }
        let entries = try scanEntries()
        let intact = try stored == RowsDigest.compute(entries, keys: keys)
        scanned = (version, entries, intact)
        return (entries, intact)
    }

    private func scanEntries() throws(SecureStoreError) -> [ItemIndexEntry] {
        let statement = try connection.prepared("SELECT id, class, grp, uniq, prim FROM items ORDER BY id")
        defer { statement.reset() }
        var entries: [ItemIndexEntry] = []
        while try statement.step() {
            entries.append(
                ItemIndexEntry(
                    id: statement.int64(at: 0), classCode: statement.int64(at: 1), group: statement.bytes(at: 2),
                    unique: statement.bytes(at: 3), primary: statement.bytes(at: 4)))
        }
        return entries
    }

    private func storedDigest() throws(SecureStoreError) -> [UInt8]? {
        let statement = try connection.prepared("SELECT value FROM rows_digest WHERE id = 1")
        defer { statement.reset() }
        return try statement.step() ? statement.bytes(at: 0) : nil
    }

    private func digestTableExists() throws(SecureStoreError) -> Bool {
        try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'rows_digest'")
            == "1"
    }

    /// SQLite's count of commits by other connections, which tells when rows read earlier are stale.
    private func dataVersion() throws(SecureStoreError) -> Int64 {
        Int64(try connection.scalarText("PRAGMA data_version") ?? "") ?? -1
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
        try read { () throws(SecureStoreError) in
            try forEachMatch(query, keys: keys, decryptAttributes: parts.contains(.attributes)) {
                (row, attributes) throws(SecureStoreError) in
                let data = parts.contains(.data) ? try openData(row, keys: keys) : nil
                // Attributes decrypted only to check the match are not part of the answer unless asked for.
                results.append(
                    StoredItem(
                        itemClass: row.itemClass, attributes: parts.contains(.attributes) ? attributes : nil,
                        data: data))
                return limit == .all
            }
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
            try forEachMatch(query, keys: keys, decryptAttributes: false) { (row, _) throws(SecureStoreError) in
                ids.append(row.id)
                return true
            }
            let statement = try connection.prepared("DELETE FROM items WHERE id = ?")
            for id in ids {
                rowsChanged = true
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
            if let entry = try entries(keys: keys).entries.first(where: { $0.unique == unique }) {
                let row = try fetchRow(entry)
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
        return try read { () throws(SecureStoreError) in try verify(keys) }
    }

    private func verify(_ keys: ItemKeys) throws(SecureStoreError) -> VerifyReport {
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
        var check = try connection.scalarText("PRAGMA quick_check") ?? "no answer"
        if check == "ok", digestReady, try !entries(keys: keys).intact {
            check = "the item rows do not match their digest (an item was removed or added outside the store)"
        }
        return VerifyReport(soundItems: sound, damagedItems: damaged, databaseCheck: check)
    }

    // MARK: Matching

    /// Calls `visit` for each item of the handle's groups that matches `query`, in row order, until it
    /// returns `false`. Attributes are decrypted when asked for or needed to check the match.
    ///
    /// Candidates come from the rows' plaintext columns, read without SQLite's own indexes (a damaged
    /// index page would hide a row). When every candidate was visited, the answer also says that
    /// nothing else matches, which is only true if the rows match their digest: otherwise it throws.
    private func forEachMatch(
        _ query: ItemAttributes, keys: ItemKeys, decryptAttributes: Bool,
        _ visit: (ItemRow, ItemAttributes?) throws(SecureStoreError) -> Bool
    ) throws(SecureStoreError) {
        let groupPositions = try resolveGroupsForRead(query.accessGroup)
        let itemClass = query.itemClass
        let classCode = Int64(itemClass.rawValue)
        let named = Set(query.values.keys).subtracting([.accessGroup])
        let uniqueNames = Set(itemClass.uniqueKey).subtracting([.accessGroup])
        let byUnique = uniqueNames.isSubset(of: named)
        let byPrimary = !byUnique && named.contains(itemClass.primaryAttribute)
        // The unique index answers exactly for its attributes; anything else is checked on the
        // decrypted attributes (the primary index is truncated, so it is always checked).
        let mustCheck = byUnique ? !named.isSubset(of: uniqueNames) : !named.isEmpty
        let (entries, intact) = try entries(keys: keys)
        for position in groupPositions {
            let group = groupIndexes[position]
            let candidates: [ItemIndexEntry]
            if byUnique {
                let unique = try keys.uniqueIndex(query, group: group)
                candidates = entries.filter { $0.unique == unique }
                // The unique index covers the class and group: a row it finds with another class or
                // group was edited.
                guard candidates.allSatisfy({ $0.classCode == classCode && $0.group == group }) else {
                    throw .integrityFailure("an item's row disagrees with its unique index")
                }
            } else if byPrimary {
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                // The primary index is short: another class or group may share a value.
                candidates = entries.filter { $0.primary == primary && $0.classCode == classCode && $0.group == group }
            } else {
                candidates = entries.filter { $0.classCode == classCode && $0.group == group }
            }
            for entry in candidates {
                let row = try fetchRow(entry)
                var attributes: ItemAttributes?
                if mustCheck || decryptAttributes {
                    attributes = try openAttributes(row, keys: keys)
                    if mustCheck && !attributes!.matches(query) { continue }
                }
                if try !visit(row, attributes) { return }
            }
        }
        guard intact else { throw RowsDigest.mismatch }
    }

    /// The full row of `entry`, which must still hold the same plaintext columns.
    private func fetchRow(_ entry: ItemIndexEntry) throws(SecureStoreError) -> ItemRow {
        let statement = try connection.prepared("SELECT \(Self.columns) FROM items WHERE id = ?")
        defer { statement.reset() }
        statement.bind(entry.id, at: 1)
        guard try statement.step(), statement.int64(at: 1) == entry.classCode, statement.bytes(at: 2) == entry.group,
            statement.bytes(at: 3) == entry.unique, statement.bytes(at: 4) == entry.primary
        else { throw .integrityFailure("an item's row changed while it was read") }
        guard let itemClass = ItemClass(rawValue: UInt8(clamping: entry.classCode)),
            Int64(itemClass.rawValue) == entry.classCode
        else { throw .integrityFailure("an item has an unknown class") }
        return ItemRow(
            id: entry.id, itemClass: itemClass, group: entry.group, unique: entry.unique, primary: entry.primary,
            sealedAttributes: statement.bytes(at: 5), sealedData: statement.bytes(at: 6))
    }

    /// The rows `sql` selects, leaving out (and counting) rows whose class this version does not know.
    private func fetchRowsCountingUnknownClasses(_ sql: String, _ blobs: [[UInt8]])
        throws(SecureStoreError) -> (rows: [ItemRow], unknownClasses: Int)
    {
        let statement = try connection.prepared(sql)
        defer { statement.reset() }
        var parameter: Int32 = 1
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
            rows.append(
                ItemRow(
                    id: statement.int64(at: 0), itemClass: itemClass, group: statement.bytes(at: 2),
                    unique: statement.bytes(at: 3), primary: statement.bytes(at: 4),
                    sealedAttributes: statement.bytes(at: 5), sealedData: statement.bytes(at: 6)))
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
        rowsChanged = true
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
        rowsChanged = true
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
