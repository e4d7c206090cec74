import StoreCore
import Data
import Domain
import Foundation

/// The store's working parts behind its lock: the SQLite connection, the header and, while unlocked,
/// the keys. Every operation of ``SQLiteSecureItemStore`` runs here.
///
/// Not `Sendable`: exactly one ``SQLiteSecureItemStore`` owns an engine and touches it only inside its
/// mutex, so at most one thread uses the connection and keys at a time.
///
/// This is the hot path of every token read and write, so it avoids work per call that can be done
/// once: statements are prepared once and held by position, queries are planned with bit sets, indexes
/// are inline values, and buffers for index messages and additional data are reused.
final class StoreEngine {
    let connection: SQLiteConnection
    let options: StoreOptions
    let groups: [String]
    var header: StoreHeader
    private(set) var keys: ItemKeys?
    private var groupIndexes: [BlindIndex] = []
    private var transactionDepth = 0
    /// The row id this handle expects its next insert to get: one past the last it inserted. Only a
    /// guess (another process may have inserted since), checked by the insert itself.
    private var nextID: Int64?
    private var statements: [SQLiteStatement?] = Array(repeating: nil, count: Query.allCases.count * 8)
    /// The rows digest of the write transaction in progress: read when it starts, written when it
    /// commits if a row was inserted, deleted or moved (see ``RowsDigest``).
    private var pendingDigest: RowsDigest?
    private var digestChanged = false
    /// The data version at which the rows were last checked against the stored digest, and the damage
    /// found then (`nil`: they matched). This connection's own commits keep a match matching (and cannot
    /// start on damage); another connection's commit changes the version, and the rows are checked
    /// again. Remembering damage makes every later read of a damaged store fail at once instead of
    /// after another full pass.
    private var digestChecked: (version: Int64, damage: SecureStoreError?)?
    /// Whether the `rows_digest` table is known to exist (a store made before it has none until opened).
    private var digestTableKnown = false

    /// The statements of the hot path, each prepared on first use and kept.
    private enum Query: Int, CaseIterable {
        case byUnique, byPrimary, byClassAndGroup, all, lastID, insert, insertIfNewest, updateSealed, updateAll
        case delete, deleteExactly
        case loadDigest, storeDigest, dataVersion, indexEntries, countUnique, countUniqueNotIndexed, countPrimary
        case countPrimaryNotIndexed

        /// The SQL, selecting (for the four reads) only the columns in `columns`: the others are NULL,
        /// so that each column keeps its position and SQLite copies no blob that is not used.
        func sql(columns wanted: Columns) -> String {
            let columns =
                "id, class, \(wanted.contains(.indexes) ? "grp, uniq, prim" : "NULL, NULL, NULL"), "
                + "\(wanted.contains(.attributes) ? "attrs" : "NULL"), \(wanted.contains(.data) ? "data" : "NULL")"
            return switch self {
            // The unique index is (prim, uniq): the primary index is part of every unique key.
            case .byUnique: "SELECT \(columns) FROM items WHERE prim = ? AND uniq = ?"
            case .byPrimary: "SELECT \(columns) FROM items WHERE prim = ? ORDER BY id"
            case .byClassAndGroup: "SELECT \(columns) FROM items WHERE class = ? AND grp = ? ORDER BY id"
            case .all: "SELECT \(columns) FROM items ORDER BY id"
            case .lastID: "SELECT max(id) FROM items"
            case .insert: "INSERT INTO items (id, class, grp, uniq, prim, attrs, data) VALUES (?, ?, ?, ?, ?, ?, ?)"
            // Inserts under row id ?1 only if it is past every row id: otherwise the class is NULL and
            // the NOT NULL constraint refuses the row (an id already taken, or one below the newest).
            case .insertIfNewest:
                "INSERT INTO items (id, class, grp, uniq, prim, attrs, data) VALUES "
                    + "(?1, CASE WHEN (SELECT ifnull(max(id), 0) FROM items) < ?1 THEN ?2 END, ?3, ?4, ?5, ?6, ?7)"
            case .updateSealed: "UPDATE items SET attrs = ?, data = ? WHERE id = ?"
            case .updateAll: "UPDATE items SET grp = ?, uniq = ?, prim = ?, attrs = ?, data = ? WHERE id = ?"
            case .delete: "DELETE FROM items WHERE id = ?"
            case .deleteExactly: "DELETE FROM items WHERE prim = ? AND uniq = ? AND class = ? AND grp = ? RETURNING id"
            case .loadDigest: "SELECT value FROM rows_digest WHERE id = 1"
            case .storeDigest: "UPDATE rows_digest SET value = ? WHERE id = 1"
            case .dataVersion: "PRAGMA data_version"
            case .indexEntries: "SELECT id, class, grp, uniq, prim FROM items"
            case .countUnique: "SELECT count(*) FROM items WHERE prim = ? AND uniq = ?"
            case .countUniqueNotIndexed: "SELECT count(*) FROM items NOT INDEXED WHERE prim = ? AND uniq = ?"
            case .countPrimary: "SELECT count(*) FROM items WHERE prim = ?"
            case .countPrimaryNotIndexed: "SELECT count(*) FROM items NOT INDEXED WHERE prim = ?"
            }
        }
    }

    /// Which columns a read copies out of each row besides its id and class.
    private struct Columns: OptionSet {
        let rawValue: UInt8
        /// The attributes' ciphertext.
        static let attributes = Columns(rawValue: 1)
        /// The data's ciphertext.
        static let data = Columns(rawValue: 2)
        /// The three index cells. A read by unique key that decrypts every row it finds leaves them
        /// out: it knows them already, and decryption fails unless they are the row's (they are in
        /// its additional data), which checks them as comparing the cells would.
        static let indexes = Columns(rawValue: 4)
    }

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

    private func statement(_ query: Query, columns: Columns = []) throws(SecureStoreError) -> SQLiteStatement {
        let slot = query.rawValue * 8 + Int(columns.rawValue)
        if let statement = statements[slot] { return statement }
        let statement = try connection.prepared(query.sql(columns: columns))
        statements[slot] = statement
        return statement
    }

    // MARK: Transactions

    /// Runs `body` inside one `BEGIN IMMEDIATE` transaction, taking the write lock before anything is
    /// read, so read-then-write is never interleaved with another writer.
    ///
    /// Inside a transaction already open, `body` runs in a savepoint: when it throws, all of its own
    /// writes are undone (an update that clashes on its second item leaves the first as it was) while
    /// the enclosing transaction's earlier writes stay, for the caller to commit or roll back. A
    /// transaction of its own needs no savepoint: rolling it back undoes the same writes.
    func write<Result>(_ body: () throws -> Result) throws -> Result {
        if transactionDepth > 0 {
            // SQLite rolls a whole transaction back on some failures (disk full, I/O error). A savepoint
            // opened now would start a new, separate transaction and commit on release: refuse instead.
            guard connection.isInTransaction else {
                throw SecureStoreError.storage(
                    code: 0, message: "the transaction was rolled back after an earlier failure; run it again")
            }
            let savepoint = "nested\(transactionDepth)"
            try connection.prepared("SAVEPOINT \(savepoint)").run()
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            // The rows digest as it was at the savepoint: rolled back with the rows it describes.
            let digestAtSavepoint = (pendingDigest, digestChanged)
            do {
                let result = try body()
                try connection.prepared("RELEASE \(savepoint)").run()
                return result
            } catch {
                // Fails only when SQLite already rolled back the whole transaction; COMMIT then fails too.
                try? connection.execute("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
                (pendingDigest, digestChanged) = digestAtSavepoint
                throw error
            }
        }
        try connection.beginImmediate()
        transactionDepth = 1
        defer {
            transactionDepth = 0
            pendingDigest = nil
        }
        do {
            try beginDigest()
            let result = try body()
            try finishDigest()
            try connection.commit()
            return result
        } catch {
            if connection.isInTransaction { try? connection.rollback() }
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

    // MARK: Rows digest

    /// Reads the rows digest at the start of a write transaction, and checks the rows against it unless
    /// they were checked since the last change by another connection: a write never builds on damage.
    private func beginDigest() throws(SecureStoreError) {
        digestChanged = false
        guard let keys, let stored = try loadDigest() else {
            pendingDigest = nil
            return
        }
        try checkRowsIfChanged(against: stored, keys: keys)
        pendingDigest = stored
    }

    /// Writes the rows digest back when the transaction changed a row.
    private func finishDigest() throws(SecureStoreError) {
        guard digestChanged, let pendingDigest else { return }
        let store = try statement(.storeDigest)
        store.bind(pendingDigest.encoded, at: 1)
        try store.run()
        digestChanged = false
    }

    private func digestInsert(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) {
        guard pendingDigest != nil else { return }
        pendingDigest!.insert(try rowHash(row, keys: keys))
        digestChanged = true
    }

    private func digestRemove(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) {
        guard pendingDigest != nil else { return }
        pendingDigest!.remove(try rowHash(row, keys: keys))
        digestChanged = true
    }

    private func rowHash(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> [UInt8] {
        try RowsDigest.rowHash(
            id: row.id, classCode: Int64(row.itemClass.rawValue), group: row.group, unique: row.unique,
            primary: row.primary, keys: keys)
    }

    /// The stored rows digest, or `nil` for a store made before it existed (until ``ensureRowsDigest()``).
    private func loadDigest() throws(SecureStoreError) -> RowsDigest? {
        if !digestTableKnown {
            guard try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE name = 'rows_digest'") == "1"
            else { return nil }
            digestTableKnown = true
        }
        let load = try statement(.loadDigest)
        defer { load.reset() }
        guard try load.step(), let digest = RowsDigest(encoded: load.bytes(at: 0)) else {
            throw .integrityFailure("the rows digest is missing or malformed")
        }
        return digest
    }

    /// Checks the rows against `stored` unless nothing changed since they last matched.
    private func checkRowsIfChanged(against stored: RowsDigest, keys: ItemKeys) throws(SecureStoreError) {
        let version = try dataVersion()
        if let digestChecked, digestChecked.version == version {
            if let damage = digestChecked.damage { throw damage }
            return
        }
        do throws(SecureStoreError) {
            guard try computeDigest(keys: keys) == stored else { throw RowsDigest.mismatch }
            digestChecked = (version, nil)
        } catch .integrityFailure(let reason) {
            // A row that does not match, or a page that fails its checksum: the same answer until the
            // data changes. Other failures (busy, I/O) are not remembered: the next read tries again.
            digestChecked = (version, .integrityFailure(reason))
            throw .integrityFailure(reason)
        }
    }

    /// The digest of the rows as they are, from a pass over the table.
    private func computeDigest(keys: ItemKeys) throws(SecureStoreError) -> RowsDigest {
        let scan = try statement(.indexEntries)
        defer { scan.reset() }
        var digest = RowsDigest.empty
        while try scan.step() {
            // Cells of another type than the store writes would hash like the right ones but not match
            // in SQL (a class stored as the blob "1…" is not the integer 1): damage.
            guard let classCode = scan.strictInteger(at: 1), let (group, unique, primary) = indexCells(scan)
            else { throw RowsDigest.mismatch }
            digest.insert(
                try RowsDigest.rowHash(
                    id: scan.int64(at: 0), classCode: classCode, group: group, unique: unique, primary: primary,
                    keys: keys))
        }
        return digest
    }

    /// The group, unique and primary index cells of the current row (columns 2, 3 and 4 of every item
    /// query), or `nil` when one of them is not a blob of its size.
    private func indexCells(_ statement: SQLiteStatement) -> (BlindIndex, BlindIndex, BlindIndex)? {
        guard let group = statement.blindIndex(at: 2, count: ItemKeys.indexBytes),
            let unique = statement.blindIndex(at: 3, count: ItemKeys.indexBytes),
            let primary = statement.blindIndex(at: 4, count: ItemKeys.primaryIndexBytes)
        else { return nil }
        return (group, unique, primary)
    }

    /// SQLite's count of commits by other connections: when it is unchanged, rows checked earlier are
    /// still as they were (this connection's own writes keep the digest up to date).
    private func dataVersion() throws(SecureStoreError) -> Int64 {
        let version = try statement(.dataVersion)
        defer { version.reset() }
        _ = try version.step()
        return version.int64(at: 0)
    }

    /// Before answering "none" (or "all of them"), checks in one snapshot that the rows match their
    /// digest and, for a lookup through an index, that SQLite's index did not leave a row out: damage
    /// is an integrity failure, never a missing item.
    private func confirmComplete(_ query: ItemAttributes, keys: ItemKeys, found: Int) throws(SecureStoreError) {
        try readSnapshot { () throws(SecureStoreError) in
            if let stored = try loadDigest() { try checkRowsIfChanged(against: stored, keys: keys) }
            guard found == 0 else { return }
            let plan = QueryPlan(query)
            guard plan.byUnique || plan.byPrimary else { return }  // Other reads scan the table itself.
            let itemClass = query.itemClass
            for position in try resolveGroupsForRead(query.accessGroup) {
                let group = groupIndexes[position]
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                let unique = plan.byUnique ? try keys.uniqueIndex(query, group: group) : nil
                let throughIndex = try count(plan.byUnique ? .countUnique : .countPrimary, primary, unique)
                let throughTable = try count(
                    plan.byUnique ? .countUniqueNotIndexed : .countPrimaryNotIndexed, primary, unique)
                guard throughIndex == throughTable else {
                    throw .integrityFailure("an index of the database is damaged (run `hardtack keychain verify`)")
                }
            }
        }
    }

    private func count(_ query: Query, _ primary: BlindIndex, _ unique: BlindIndex?) throws(SecureStoreError) -> Int64 {
        let select = try statement(query)
        defer { select.reset() }
        select.bind(primary, at: 1)
        if let unique { select.bind(unique, at: 2) }
        _ = try select.step()
        return select.int64(at: 0)
    }

    /// Runs `body` in a read transaction (one snapshot), or in the transaction already open.
    private func readSnapshot(_ body: () throws(SecureStoreError) -> Void) throws(SecureStoreError) {
        guard transactionDepth == 0 else { return try body() }
        try connection.execute("BEGIN")
        do {
            try body()
            try connection.execute("COMMIT")
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Gives a store made before the rows digest one, taking its rows as they are (trust on first use).
    func ensureRowsDigest() throws(SecureStoreError) {
        guard let keys, try loadDigest() == nil else { return }
        try writeTyped { () throws(SecureStoreError) in
            guard try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE name = 'rows_digest'") == "0"
            else { return }
            try connection.execute(RowsDigest.schema)
            let insert = try connection.prepared("INSERT INTO rows_digest (id, value) VALUES (1, ?)")
            insert.bind(try computeDigest(keys: keys).encoded, at: 1)
            try insert.run()
        }
        digestTableKnown = true
    }

    /// Whether the rows match their digest, for ``verify()``.
    private func rowsMatchDigest(keys: ItemKeys) throws(SecureStoreError) -> Bool {
        guard let stored = try loadDigest() else { return true }
        do {
            return try computeDigest(keys: keys) == stored
        } catch .integrityFailure {
            return false  // A cell of the wrong type or size: the rows cannot match.
        }
    }

    // MARK: Operations

    func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        let keys = try unlockedKeys()
        try checkWritable(attributes)
        let group = try resolveGroupForWrite(attributes.accessGroup)
        var full = attributes
        full.reserveCapacity(forAdditional: 3)
        full.setStoreManaged(.accessGroup, .string(groups[group]))
        let now = roundedNow()
        full.setStoreManaged(.creationDate, .date(now))
        full.setStoreManaged(.modificationDate, .date(now))
        // One transaction: the row and the rows digest change together. The insert usually takes the id
        // this handle expects; when the guess is stale (or there is none yet), it reads the newest id.
        try writeTyped { () throws(SecureStoreError) in
            if let guess = nextID, try insert(full, data: data, group: group, keys: keys, ifNewest: guess) { return }
            try insert(full, data: data, group: group, keys: keys)
        }
    }

    func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        let keys = try unlockedKeys()
        var results: [StoredItem] = []
        let wantsAttributes = parts.contains(.attributes)
        let wantsData = parts.contains(.data)
        try forEachMatch(
            query, keys: keys, decryptAttributes: wantsAttributes, decryptsData: wantsData, copying: wantsData ? .data : []
        ) {
            (row, attributes) throws(SecureStoreError) in
            let data = wantsData ? try openData(row, keys: keys) : nil
            // Attributes decrypted only to check the match are not part of the answer unless asked for.
            results.append(
                StoredItem(itemClass: row.itemClass, attributes: wantsAttributes ? attributes : nil, data: data))
            return limit == .all
        }
        // "None" and "all of them" are claims about rows not read: they need the rows to be intact.
        if results.isEmpty || limit == .all { try confirmComplete(query, keys: keys, found: results.count) }
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
            if changes == nil, let data, QueryPlan(query).isExactlyUnique {
                let count = try updateData(byUnique: query, data: data, keys: keys)
                guard count > 0 else {
                    try confirmComplete(query, keys: keys, found: 0)
                    throw .itemNotFound
                }
                return count
            }
            var matches: [(ItemRow, ItemAttributes)] = []
            // The old data is needed only when a row must be re-encrypted under moved indexes.
            let copying: Columns = data == nil ? .data : []
            try forEachMatch(query, keys: keys, decryptAttributes: true, decryptsData: false, copying: copying) {
                (row, attributes) throws(SecureStoreError) in
                matches.append((row, attributes!))
                return true
            }
            guard !matches.isEmpty else {
                try confirmComplete(query, keys: keys, found: 0)
                throw .itemNotFound
            }
            for (row, old) in matches {
                try rewrite(row, old: old, changes: changes, data: data, keys: keys)
            }
            return matches.count
        }
    }

    func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        let keys = try unlockedKeys()
        let positions = try resolveGroupsForRead(query.accessGroup)
        if positions.count == 1, QueryPlan(query).isExactlyUnique {
            return try deleteExactly(query, group: groupIndexes[positions.lowerBound], keys: keys)
        }
        return try writeTyped { () throws(SecureStoreError) -> Int in
            var ids: [Int64] = []
            try forEachMatch(query, keys: keys, decryptAttributes: false, decryptsData: false, copying: []) {
                (row, _) throws(SecureStoreError) in
                ids.append(row.id)
                try digestRemove(row, keys: keys)
                return true
            }
            if ids.isEmpty { try confirmComplete(query, keys: keys, found: 0) }
            let statement = try statement(.delete)
            for id in ids {
                statement.bind(id, at: 1)
                try statement.run()
            }
            return ids.count
        }
    }

    /// Sets the data of the item a query names by its whole unique key (and nothing else), the commonest
    /// update (a token refreshed). Its attributes change only in their modification date, so that date
    /// is rewritten in the decrypted encoding instead of decoding and re-encoding every attribute; the
    /// indexes do not move, so only the two ciphertexts are written. Returns how many items changed.
    private func updateData(byUnique query: ItemAttributes, data: SecretBytes, keys: ItemKeys) throws(SecureStoreError)
        -> Int
    {
        let itemClass = query.itemClass
        var changed = 0
        for position in try resolveGroupsForRead(query.accessGroup) {
            let group = groupIndexes[position]
            let unique = try keys.uniqueIndex(query, group: group)
            let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
            let select = try statement(.byUnique, columns: [.attributes, .indexes])
            select.bind(primary, at: 1)
            select.bind(unique, at: 2)
            let rows = try fetchRows(select, columns: [.attributes, .indexes])
            for row in rows {
                guard row.unique == unique, row.primary == primary, row.itemClass == itemClass, row.group == group else {
                    throw .integrityFailure("an item's row disagrees with its unique index")
                }
                guard let newRow = try resealedForNewData(row, itemClass: itemClass, data: data, keys: keys) else {
                    // Not the usual shape (no modification date): the general path decodes and checks it.
                    try rewrite(row, old: try openAttributes(row, keys: keys), changes: nil, data: data, keys: keys)
                    changed += 1
                    continue
                }
                let statement = try statement(.updateSealed)
                statement.bind(newRow.sealedAttributes, at: 1)
                statement.bind(newRow.sealedData, at: 2)
                statement.bind(row.id, at: 3)
                try statement.run()
                changed += 1
            }
        }
        return changed
    }

    /// `row` (found by unique key, its attributes read and its indexes known) with `data` sealed as its
    /// new secret and its attributes resealed with a new modification date, rewritten in place in the
    /// decrypted encoding. `nil` when the encoding has no modification date to rewrite.
    private func resealedForNewData(_ row: ItemRow, itemClass: ItemClass, data: SecretBytes, keys: ItemKeys)
        throws(SecureStoreError) -> ItemRow?
    {
        guard row.itemClass == itemClass else { throw .integrityFailure("an item's row disagrees with its unique index") }
        let plain = try openAttributeBytes(row, keys: keys)
        var encoded = plain.withUnsafeBytes { Array($0) }
        defer { encoded.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        guard encoded.first == itemClass.rawValue,
            AttributeCodec.replaceDate(.modificationDate, with: roundedNow(), in: &encoded)
        else { return nil }
        var newRow = ItemRow(id: row.id, itemClass: itemClass, group: row.group, unique: row.unique, primary: row.primary)
        let nonces = Sodium.randomBytes(2 * Sodium.nonceBytes)
        try sealAttributes(&newRow, encoded: encoded, keys: keys, nonce: nonces[..<Sodium.nonceBytes])
        try sealData(&newRow, data, keys: keys, nonce: nonces[Sodium.nonceBytes...])
        return newRow
    }

    /// Deletes the item a query names by its whole unique key (and nothing else) in one group, in one
    /// statement: atomic by itself, so it needs no transaction of its own, and inside a caller's
    /// transaction a failure leaves nothing behind either. The statement deletes only a row whose class
    /// and group agree with the unique index; when it deletes nothing, a row the index points at with
    /// another class or group was edited behind the store's back, which is an integrity failure.
    private func deleteExactly(_ query: ItemAttributes, group: BlindIndex, keys: ItemKeys) throws(SecureStoreError) -> Int {
        let itemClass = query.itemClass
        let unique = try keys.uniqueIndex(query, group: group)
        let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
        return try writeTyped { () throws(SecureStoreError) -> Int in
            let delete = try statement(.deleteExactly)
            delete.bind(primary, at: 1)
            delete.bind(unique, at: 2)
            delete.bind(Int64(itemClass.rawValue), at: 3)
            delete.bind(group, at: 4)
            var deleted: [Int64] = []
            do {
                defer { delete.reset() }
                while try delete.step() { deleted.append(delete.int64(at: 0)) }
            }
            for id in deleted {
                try digestRemove(
                    ItemRow(id: id, itemClass: itemClass, group: group, unique: unique, primary: primary), keys: keys)
            }
            guard deleted.isEmpty else { return deleted.count }
            let select = try statement(.byUnique, columns: .indexes)
            select.bind(primary, at: 1)
            select.bind(unique, at: 2)
            for row in try fetchRows(select, columns: .indexes) where row.itemClass != itemClass || row.group != group {
                throw .integrityFailure("an item's row disagrees with its unique index")
            }
            try confirmComplete(query, keys: keys, found: 0)
            return 0
        }
    }

    func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> AddOrUpdateOutcome {
        let keys = try unlockedKeys()
        try checkWritable(attributes)
        let group = try resolveGroupForWrite(attributes.accessGroup)
        var full = attributes
        full.reserveCapacity(forAdditional: 3)
        full.setStoreManaged(.accessGroup, .string(groups[group]))
        return try writeTyped { () throws(SecureStoreError) -> AddOrUpdateOutcome in
            let groupIndex = groupIndexes[group]
            let unique = try keys.uniqueIndex(full, group: groupIndex)
            let primary = try keys.primaryIndex(full.itemClass, value: full[full.itemClass.primaryAttribute], group: groupIndex)
            let select = try statement(.byUnique, columns: [.attributes, .indexes])
            select.bind(primary, at: 1)
            select.bind(unique, at: 2)
            if let row = try fetchRows(select, columns: [.attributes, .indexes]).first {
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
        let everything: Columns = [.attributes, .data, .indexes]
        let (rows, unreadable) = try fetchRowsCountingUnreadable(try statement(.all, columns: everything), columns: everything)
        var damaged = unreadable
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
        // SQLite names a page that failed its checksum only by the error's number.
        check = check.replacingOccurrences(
            of: "error code=\(SQLiteChecksumVFS.damagedPageCode)", with: "its checksum does not match")
        if check == "ok", try !rowsMatchDigest(keys: keys) {
            check = "item rows do not match their digest (a row was removed or its indexes changed)"
        }
        return VerifyReport(soundItems: sound, damagedItems: damaged, databaseCheck: check)
    }

    // MARK: Matching

    /// Calls `visit` for each item of the handle's groups that matches `query`, in row order, until it
    /// returns `false`. Attributes are decrypted when asked for or needed to check the match; `copying`
    /// names the ciphertexts `visit` needs besides those, and `decryptsData` says that `visit` decrypts
    /// every row's data before it acts on the row.
    private func forEachMatch(
        _ query: ItemAttributes, keys: ItemKeys, decryptAttributes: Bool, decryptsData: Bool, copying: Columns,
        _ visit: (ItemRow, ItemAttributes?) throws(SecureStoreError) -> Bool
    ) throws(SecureStoreError) {
        let groupPositions = try resolveGroupsForRead(query.accessGroup)
        let itemClass = query.itemClass
        let plan = QueryPlan(query)
        let mustCheck = plan.mustCheck
        let opensAttributes = mustCheck || decryptAttributes
        let copying = opensAttributes ? copying.union(.attributes) : copying
        // The row's own index cells are always read and compared with the query's: a row whose group or
        // class cell was edited must be an integrity error even though its ciphertext, bound to the
        // query's values, would still decrypt.
        let indexesAuthenticated = false
        for position in groupPositions {
            let group = groupIndexes[position]
            var rows: [ItemRow]
            if plan.byUnique {
                let unique = try keys.uniqueIndex(query, group: group)
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                let columns = indexesAuthenticated ? copying : copying.union(.indexes)
                let select = try statement(.byUnique, columns: columns)
                select.bind(primary, at: 1)
                select.bind(unique, at: 2)
                rows = try fetchRows(select, columns: columns, known: (group, unique, primary))
                // The unique index covers the class and group: a row it finds with another class or
                // group, or other index values, was edited (or SQLite's index is damaged).
                for row in rows
                where row.unique != unique || row.primary != primary || row.itemClass != itemClass || row.group != group {
                    throw .integrityFailure("an item's row disagrees with its unique index")
                }
            } else if plan.byPrimary {
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                let select = try statement(.byPrimary, columns: copying.union(.indexes))
                select.bind(primary, at: 1)
                rows = try fetchRows(select, columns: copying.union(.indexes))
                for row in rows where row.primary != primary {
                    throw .integrityFailure("an item's row disagrees with its primary index")
                }
                // The primary index is short: another class or group may share a value.
                rows.removeAll { $0.itemClass != itemClass || $0.group != group }
            } else {
                let select = try statement(.byClassAndGroup, columns: copying.union(.indexes))
                select.bind(Int64(itemClass.rawValue), at: 1)
                select.bind(group, at: 2)
                rows = try fetchRows(select, columns: copying.union(.indexes))
            }
            for row in rows {
                var attributes: ItemAttributes?
                if opensAttributes {
                    attributes = try openAttributes(row, keys: keys)
                    if mustCheck && !attributes!.matches(query) { continue }
                }
                if try !visit(row, attributes) { return }
            }
        }
    }

    /// The rows a bound `statement` selects, with the columns named by `columns`; without
    /// ``Columns/indexes``, each row's index cells are taken to be `known`.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when a row has a class this version does not
    ///   know or an index of the wrong size.
    private func fetchRows(
        _ statement: SQLiteStatement, columns: Columns, known: (BlindIndex, BlindIndex, BlindIndex)? = nil
    ) throws(SecureStoreError) -> [ItemRow] {
        let (rows, unreadable) = try fetchRowsCountingUnreadable(statement, columns: columns, known: known)
        guard unreadable == 0 else { throw .integrityFailure("an item has an unknown class or a malformed index") }
        return rows
    }

    /// The rows a bound `statement` selects, leaving out (and counting) rows whose class this version
    /// does not know or whose indexes have the wrong size. Resets the statement.
    private func fetchRowsCountingUnreadable(
        _ statement: SQLiteStatement, columns: Columns, known: (BlindIndex, BlindIndex, BlindIndex)? = nil
    ) throws(SecureStoreError) -> (rows: [ItemRow], unreadable: Int) {
        defer { statement.reset() }
        precondition(columns.contains(.indexes) || known != nil, "a read without index cells must know them")
        var rows: [ItemRow] = []
        var unreadable = 0
        while try statement.step() {
            let indexes = columns.contains(.indexes) ? indexCells(statement) : known
            guard let classCode = statement.strictInteger(at: 1),
                let itemClass = ItemClass(rawValue: UInt8(clamping: classCode)),
                let (group, unique, primary) = indexes
            else {
                unreadable += 1
                continue
            }
            rows.append(
                ItemRow(
                    id: statement.int64(at: 0), itemClass: itemClass, group: group, unique: unique, primary: primary,
                    sealedAttributes: columns.contains(.attributes) ? statement.bytes(at: 5) : [],
                    sealedData: columns.contains(.data) ? statement.bytes(at: 6) : []))
        }
        return (rows, unreadable)
    }

    // MARK: Sealing

    /// Inserts a new item under the next row id, `max(id) + 1`, read inside the write transaction. Row
    /// ids only grow while a handle inserts, but an id freed by deleting the newest item may be given
    /// again later, which binds nothing new to the old ciphertexts (their additional data also names
    /// the old item's indexes, and putting back an old row whole is the rollback the security model
    /// does not cover).
    private func insert(_ full: ItemAttributes, data: SecretBytes, group: Int, keys: ItemKeys) throws(SecureStoreError)
    {
        let last = try statement(.lastID)
        _ = try last.step()
        let id = last.int64(at: 0) + 1
        last.reset()
        let row = try sealedRow(id: id, full, data: data, group: group, keys: keys)
        let statement = try statement(.insert)
        bindRow(row, to: statement)
        try statement.run()
        try digestInsert(row, keys: keys)
        nextID = id + 1
    }

    /// Inserts a new item under row id `guess` in one statement, if `guess` is still past every row id
    /// (no other process inserted since this handle did); returns `false`, having written nothing, if
    /// not. The statement is atomic by itself: outside a transaction it is one, inside it joins it.
    private func insert(_ full: ItemAttributes, data: SecretBytes, group: Int, keys: ItemKeys, ifNewest guess: Int64)
        throws(SecureStoreError) -> Bool
    {
        let row = try sealedRow(id: guess, full, data: data, group: group, keys: keys)
        let statement = try statement(.insertIfNewest)
        bindRow(row, to: statement)
        guard try statement.run(unlessConstraint: .notNull) else { return false }
        try digestInsert(row, keys: keys)
        nextID = guess + 1
        return true
    }

    /// A new item's row under `id`: its indexes and both ciphertexts, bound to that id.
    private func sealedRow(id: Int64, _ full: ItemAttributes, data: SecretBytes, group: Int, keys: ItemKeys)
        throws(SecureStoreError) -> ItemRow
    {
        var row = try indexedRow(id: id, full, group: groupIndexes[group], keys: keys)
        let nonces = Sodium.randomBytes(2 * Sodium.nonceBytes)
        try sealAttributes(&row, full, keys: keys, nonce: nonces[..<Sodium.nonceBytes])
        try sealData(&row, data, keys: keys, nonce: nonces[Sodium.nonceBytes...])
        return row
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

    /// Applies `changes` (and new `data`) to one item; re-encrypts its data when its indexes moved.
    ///
    /// `row`'s indexes were authenticated when its attributes were decrypted (they are in the additional
    /// data), so without attribute changes they are reused as they are, and only the two ciphertexts
    /// are written: the indexes' b-tree pages are not touched.
    private func rewrite(
        _ row: ItemRow, old: ItemAttributes, changes: ItemAttributes?, data: SecretBytes?, keys: ItemKeys
    ) throws(SecureStoreError) {
        var merged = old
        for (name, value) in changes?.values ?? [:] { merged.setStoreManaged(name, value) }
        merged.setStoreManaged(.modificationDate, .date(roundedNow()))
        var newRow: ItemRow
        if changes == nil {
            newRow = ItemRow(id: row.id, itemClass: row.itemClass, group: row.group, unique: row.unique, primary: row.primary)
        } else {
            let groupPosition = try resolveGroupForWrite(merged.accessGroup)
            newRow = try indexedRow(id: row.id, merged, group: groupIndexes[groupPosition], keys: keys)
        }
        let indexesMoved = !newRow.hasSameIndexes(as: row)
        let nonces = Sodium.randomBytes(2 * Sodium.nonceBytes)
        try sealAttributes(&newRow, merged, keys: keys, nonce: nonces[..<Sodium.nonceBytes])
        if let data {
            try sealData(&newRow, data, keys: keys, nonce: nonces[Sodium.nonceBytes...])
        } else if indexesMoved {
            try sealData(&newRow, try openData(row, keys: keys), keys: keys, nonce: nonces[Sodium.nonceBytes...])
        } else {
            newRow.sealedData = row.sealedData
        }
        if indexesMoved {
            let statement = try statement(.updateAll)
            statement.bind(newRow.group, at: 1)
            statement.bind(newRow.unique, at: 2)
            statement.bind(newRow.primary, at: 3)
            statement.bind(newRow.sealedAttributes, at: 4)
            statement.bind(newRow.sealedData, at: 5)
            statement.bind(row.id, at: 6)
            try statement.run()
            try digestRemove(row, keys: keys)
            try digestInsert(newRow, keys: keys)
        } else {
            let statement = try statement(.updateSealed)
            statement.bind(newRow.sealedAttributes, at: 1)
            statement.bind(newRow.sealedData, at: 2)
            statement.bind(row.id, at: 3)
            try statement.run()
        }
    }

    private func indexedRow(id: Int64, _ attributes: ItemAttributes, group: BlindIndex, keys: ItemKeys)
        throws(SecureStoreError) -> ItemRow
    {
        ItemRow(
            id: id, itemClass: attributes.itemClass, group: group,
            unique: try keys.uniqueIndex(attributes, group: group),
            primary: try keys.primaryIndex(
                attributes.itemClass, value: attributes[attributes.itemClass.primaryAttribute], group: group))
    }

    /// Encrypts the attributes into `row`, padded like the data (so the ciphertext shows only a length
    /// bucket of the names it holds) and bound to the row's indexes.
    ///
    /// The writes seal both ciphertexts of a row at once and draw their two random nonces in one call
    /// (one system call rather than two); each nonce is used once, as a fresh one would be.
    private func sealAttributes(
        _ row: inout ItemRow, _ attributes: ItemAttributes, keys: ItemKeys, nonce: ArraySlice<UInt8>
    ) throws(SecureStoreError) {
        var encoded = AttributeCodec.encode(attributes)
        defer { encoded.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        try sealAttributes(&row, encoded: encoded, keys: keys, nonce: nonce)
    }

    /// Encrypts already encoded attributes into `row`.
    private func sealAttributes(_ row: inout ItemRow, encoded: [UInt8], keys: ItemKeys, nonce: ArraySlice<UInt8>)
        throws(SecureStoreError)
    {
        let sealed = try keys.withAdditionalData(column: ItemRow.attributesColumn, row: row) {
            additionalData throws(SecureStoreError) in
            try encoded.withUnsafeBytes { raw in
                Result { () throws(SecureStoreError) in
                    try Sodium.sealPadded(
                        raw, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.attributes,
                        nonce: nonce)
                }
            }.get()
        }
        row.sealedAttributes = sealed
    }

    /// Encrypts the padded secret into `row`, bound to the row's indexes.
    private func sealData(_ row: inout ItemRow, _ data: SecretBytes, keys: ItemKeys, nonce: ArraySlice<UInt8>)
        throws(SecureStoreError)
    {
        let sealed = try keys.withAdditionalData(column: ItemRow.dataColumn, row: row) {
            additionalData throws(SecureStoreError) in
            try data.withUnsafeBytes { raw throws(SecureStoreError) in
                try Sodium.sealPadded(
                    raw, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data, nonce: nonce)
            }
        }
        row.sealedData = sealed
    }

    /// The decrypted encoding of a row's attributes.
    private func openAttributeBytes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        try keys.withAdditionalData(column: ItemRow.attributesColumn, row: row) { additionalData throws(SecureStoreError) in
            try Sodium.openPadded(
                row.sealedAttributes, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.attributes,
                what: "an item's attributes")
        }
    }

    private func openAttributes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> ItemAttributes {
        let plain = try openAttributeBytes(row, keys: keys)
        let attributes = try plain.withUnsafeBytes { raw throws(SecureStoreError) in try AttributeCodec.decode(raw) }
        guard attributes.itemClass == row.itemClass else { throw .integrityFailure("an item's class was changed") }
        return attributes
    }

    private func openData(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        try keys.withAdditionalData(column: ItemRow.dataColumn, row: row) { additionalData throws(SecureStoreError) in
            try Sodium.openPadded(
                row.sealedData, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data,
                what: "an item's data")
        }
    }

    // MARK: Groups and attributes

    private func resolveGroupForWrite(_ group: String?) throws(SecureStoreError) -> Int {
        guard let group else { return 0 }
        guard let position = groups.firstIndex(of: group) else { throw .missingEntitlement(accessGroup: group) }
        return position
    }

    private func resolveGroupsForRead(_ group: String?) throws(SecureStoreError) -> Range<Int> {
        guard let group else { return groups.indices }
        let position = try resolveGroupForWrite(group)
        return position..<(position + 1)
    }

    /// Refuses attributes a caller may not write: any the class does not allow or of the wrong kind
    /// (``ItemAttributes/setStoreManaged(_:_:)`` skips those checks, and an item written with them could
    /// never be decoded again), and the read-only dates (the first by name order, when both are given).
    private func checkWritable(_ attributes: ItemAttributes) throws(SecureStoreError) {
        _ = try ItemAttributes(attributes.itemClass, attributes.values)
        var readOnly: AttributeName?
        for name in attributes.values.keys where name.isReadOnly && (readOnly.map { name < $0 } ?? true) {
            readOnly = name
        }
        if let readOnly { throw .readOnlyAttribute(readOnly) }
    }

    private func roundedNow() -> Date {
        Date(timeIntervalSince1970: (options.now().timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
