import BenchSupport
import Data
import Domain
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

/// The past of one row put back through SQL, every other row as it is: the whole row as it was before
/// an update (its ciphertext and version), or a deleted item's row with its group's digest row from
/// before the delete, another row of the group written in between. Each row's version is bound into
/// its ciphertext and its group's digest, so `verify` and a list must see damage (counted as caught
/// or missed). A find by unique key does not consult the digest (docs/postgresql.md): what a new
/// handle's lookup of the item put back returns is counted, as the known limit, not failed. Each edit
/// is undone (the rows and digest as the store's own writes left them) before the next.
enum PGReplayProbe {
    /// What the probe saw.
    struct Figures {
        /// Edits made.
        var trials = 0
        /// Edits that `verify` and a list both reported as damage.
        var caught = 0
        /// What was not caught, one line each.
        var missed: [String] = []
        /// Lookups by unique key of the item put back that returned it (the known limit).
        var lookupsReturnedIt = 0
    }

    /// Makes four edits of `rows` (row id → account) of the default group, whose items the resident
    /// handle writes; new handles open `uri` with `source`.
    static func run(
        _ sql: PostgreSQLConnection, uri: String, source: KeySource, resident: PostgreSQLSecureItemStore,
        rows: [Int64: String], secrets: [String: String], schema: String, _ random: inout SeededGenerator
    ) -> Figures {
        var figures = Figures()
        var candidates = rows
        let items = "\(schema).items"
        let digests = "\(schema).group_digests"
        let columns = "id, class, grp, uniq, prim, attrs, data, ver"
        for trial in 0..<4 {
            guard let (row, account) = candidates.randomElement(using: &random), let secret = secrets[account] else { break }
            let query = ItemAttributes.genericPassword(service: PGTamperScenario.service(of: account), account: account)
            let name = trial % 2 == 0 ? "older copy of a row" : "deleted row with its group's old digest"
            do {
                let saved = try sql.query("SELECT \(columns) FROM \(items) WHERE id = $1", [.int64(row)])
                let values = try rowValues(saved)
                let group = try saved.bytes(0, 2)
                if trial % 2 == 0 {
                    // Rewritten by the store with the same value: a new ciphertext and version.
                    try resident.update(query, attributes: nil, data: SecretBytes(utf8: secret))
                    let current = try rowValues(try sql.query("SELECT \(columns) FROM \(items) WHERE id = $1", [.int64(row)]))
                    try replace(sql, items, row: row, with: values)
                    figures.trials += 1
                    check(name, uri: uri, source: source, query: query, into: &figures)
                    try replace(sql, items, row: row, with: current)
                } else {
                    let oldDigest = try sql.query("SELECT value FROM \(digests) WHERE grp = $1", [.bytes(group)]).bytes(0, 0)
                    guard let (_, written) = candidates.first(where: { $0.key != row }), let writtenSecret = secrets[written]
                    else { break }
                    _ = try resident.delete(query)
                    try resident.update(
                        .genericPassword(service: PGTamperScenario.service(of: written), account: written),
                        attributes: nil, data: SecretBytes(utf8: writtenSecret))
                    let currentDigest = try sql.query("SELECT value FROM \(digests) WHERE grp = $1", [.bytes(group)]).bytes(0, 0)
                    _ = try sql.query("INSERT INTO \(items) (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", values)
                    _ = try sql.query("UPDATE \(digests) SET value = $1 WHERE grp = $2", [.bytes(oldDigest), .bytes(group)])
                    figures.trials += 1
                    check(name, uri: uri, source: source, query: query, into: &figures)
                    _ = try sql.query("DELETE FROM \(items) WHERE id = $1", [.int64(row)])
                    _ = try sql.query("UPDATE \(digests) SET value = $1 WHERE grp = $2", [.bytes(currentDigest), .bytes(group)])
                    candidates[row] = nil
                }
            } catch {
                figures.missed.append("\(name): the edit failed: \(error)")
            }
        }
        return figures
    }

    /// Reads through new handles: the lookup (the known limit, counted), then `verify` and a list.
    private static func check(
        _ name: String, uri: String, source: KeySource, query: ItemAttributes, into figures: inout Figures
    ) {
        do {
            if (try? PostgreSQLSecureItemStore.open(uri: uri, keySource: source).find(query, limit: .one)) != nil {
                figures.lookupsReturnedIt += 1
            }
            let fresh = try PostgreSQLSecureItemStore.open(uri: uri, keySource: source)
            let verifySound = try fresh.verify().isSound
            var listDamaged = false
            do throws(SecureStoreError) {
                _ = try fresh.find(.genericPassword(), limit: .all, returning: .attributes)
            } catch .integrityFailure {
                listDamaged = true
            } catch {
                figures.missed.append("\(name): the list failed: \(error)")
            }
            if !verifySound && listDamaged {
                figures.caught += 1
            } else {
                figures.missed.append("\(name): verify sound \(verifySound), list damaged \(listDamaged)")
            }
        } catch {
            figures.missed.append("\(name): \(error)")
        }
    }

    /// The eight columns of the one row of `result`, as parameters.
    private static func rowValues(_ result: PostgreSQLResult) throws -> [PostgreSQLValue] {
        [
            .int64(try result.int64(0, 0)), .int64(try result.int64(0, 1)), .bytes(try result.bytes(0, 2)),
            .bytes(try result.bytes(0, 3)), .bytes(try result.bytes(0, 4)), .bytes(try result.bytes(0, 5)),
            .bytes(try result.bytes(0, 6)), .int64(try result.int64(0, 7)),
        ]
    }

    /// Sets every column of row `row` but its id to `values`' (in the order of ``rowValues(_:)``).
    private static func replace(_ sql: PostgreSQLConnection, _ items: String, row: Int64, with values: [PostgreSQLValue])
        throws
    {
        _ = try sql.query(
            "UPDATE \(items) SET class = $2, grp = $3, uniq = $4, prim = $5, attrs = $6, data = $7, ver = $8 WHERE id = $1",
            values)
    }
}
