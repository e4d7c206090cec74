package import Data
package import StoreCore

/// A damaged store on PostgreSQL read for salvage: its header and rows digest as stored, and its item
/// rows one at a time (first their ids, then each row by id), so a row the server cannot return or
/// that does not read as the store writes it costs only itself. The session is read-only
/// (`default_transaction_read_only`): salvage cannot change the store.
package final class PostgreSQLSalvageSource: SalvageSource {
    private let storage: PostgreSQLItemStorage

    /// Connects to the store at `uri` (schema `hardtack`), read-only.
    /// - Throws: ``SecureStoreError/storage(_:)`` when the server cannot be reached.
    package init(uri: String, schema: String = "hardtack") throws(SecureStoreError) {
        guard PostgreSQLSchema.isPlainIdentifier(schema) else { throw .itemNotFound }
        do {
            let connection = try PostgreSQLConnection(to: try PostgreSQLLocation(uri))
            try PostgreSQLStoreOpener.configureSession(connection)
            try connection.execute("SET default_transaction_read_only = on")
            storage = PostgreSQLItemStorage(connection: connection, schema: schema)
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    /// The header row, when the server can return it.
    package func headerRecords() throws(SecureStoreError) -> [HeaderRecord] {
        (try? storage.readHeaderRecord()).flatMap { $0 }.map { [$0] } ?? []
    }

    /// The rows digest, when the server can return it.
    package func rowsDigests() throws(SecureStoreError) -> [[UInt8]] {
        (try? storage.loadRowsDigest()).flatMap { $0 }.map { [$0] } ?? []
    }

    /// Each access group's rows digest (schema version 2 on), when the server can return them.
    package func groupDigests() throws(SecureStoreError) -> [(group: BlindIndex?, encoded: [UInt8])] {
        (try? storage.allGroupDigests()) ?? []
    }

    /// The registry of the groups that have a digest row, when the server can return it.
    package func groupRegistry() throws(SecureStoreError) -> [UInt8]? {
        (try? storage.loadGroupRegistry(locking: false)).flatMap { $0 }
    }

    /// Every item row, read one at a time by id.
    package func candidateRows() throws(SecureStoreError) -> SalvageScan {
        let ids = try storage.run("SELECT id FROM \(storage.schema).items ORDER BY id")
        var scan = SalvageScan(candidates: [])
        for index in 0..<ids.rowCount {
            guard let id = try? storage.read({ () throws(PostgreSQLError) in try ids.int64(index, 0) }) else {
                scan.unreadable.append((nil, nil))
                continue
            }
            scan.partsRead += 1
            switch row(id) {
            case .some(.some(let row)): scan.candidates.append(SalvageCandidate(row: row, recency: 0))
            case .some(.none):
                scan.unreadable.append((id, nil))
            case .none:
                scan.damagedParts += 1
                scan.unreadable.append((id, nil))
            }
        }
        return scan
    }

    /// Row `id`: `nil` when the server could not return it, `.some(nil)` when its cells do not read as
    /// the store writes them.
    private func row(_ id: Int64) -> ItemRow?? {
        guard
            let result = try? storage.run(
                "SELECT class, grp, uniq, prim, attrs, data, ver FROM \(storage.schema).items WHERE id = $1", [.int64(id)]),
            result.rowCount == 1
        else { return nil }
        let cells = try? storage.read { () throws(PostgreSQLError) in
            (
                try result.int32(0, 0), try result.bytes(0, 1), try result.bytes(0, 2), try result.bytes(0, 3),
                try result.bytes(0, 4), try result.bytes(0, 5), try result.int64(0, 6)
            )
        }
        guard let (classCode, group, unique, primary, attributes, data, version) = cells else { return .some(nil) }
        guard classCode >= 0, let itemClass = ItemClass(rawValue: UInt8(clamping: classCode)),
            let group = Self.index(group, ItemKeys.indexBytes), let unique = Self.index(unique, ItemKeys.indexBytes),
            let primary = Self.index(primary, ItemKeys.primaryIndexBytes)
        else { return .some(nil) }
        return .some(
            ItemRow(
                id: id, itemClass: itemClass, group: group, unique: unique, primary: primary,
                sealedAttributes: attributes, sealedData: data, version: version))
    }

    private static func index(_ bytes: [UInt8], _ count: Int) -> BlindIndex? {
        bytes.withUnsafeBytes { BlindIndex(copying: $0, expectedCount: count) }
    }
}
