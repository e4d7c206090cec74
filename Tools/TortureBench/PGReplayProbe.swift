import BenchSupport
import Data
import Domain
@_spi(HardtackTools) import PostgreSQLStore

/// The known gap of docs/postgresql.md, measured rather than failed: an item is updated through the
/// store, then its row's old ciphertexts are written back through SQL. The rows digest covers ids,
/// classes and indexes, not ciphertexts, and the additional data binds no row version yet, so a read
/// returns the old value.
enum PGReplayProbe {
    /// What the probe saw.
    struct Figures {
        /// Reads of replayed items.
        var trials = 0
        /// Reads that returned the old value.
        var undetected = 0
        /// Reads that were integrity errors.
        var detected = 0
    }

    /// Replays a few rows of `rows` (row id → account) and reads them back through `resident`.
    static func run(
        _ sql: PostgreSQLConnection, resident: PostgreSQLSecureItemStore, rows: [Int64: String],
        secrets: [String: String], schema: String, _ random: inout SeededGenerator
    ) -> Figures {
        var figures = Figures()
        for _ in 0..<4 {
            guard let (row, account) = rows.randomElement(using: &random), let old = secrets[account] else { break }
            let query = ItemAttributes.genericPassword(service: PGTamperScenario.service(of: account), account: account)
            do {
                let saved = try sql.query("SELECT attrs, data FROM \(schema).items WHERE id = $1", [.int64(row)])
                let attrs = try saved.bytes(0, 0)
                let data = try saved.bytes(0, 1)
                try resident.update(query, attributes: nil, data: SecretBytes(utf8: "replaced-" + random.hex(8)))
                _ = try sql.query(
                    "UPDATE \(schema).items SET attrs = $1, data = $2 WHERE id = $3", [.bytes(attrs), .bytes(data), .int64(row)])
                figures.trials += 1
                if try resident.findString(query) == old { figures.undetected += 1 }
            } catch SecureStoreError.integrityFailure {
                figures.detected += 1
            } catch {
                continue
            }
        }
        return figures
    }
}
