import Data
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

extension PostgreSQLSecureItemStore: StoreHandle {}

extension StoreAdapter {
    /// The store in a fresh schema on the real server named by `HARDTACK_TEST_POSTGRES` (Tools/test
    /// starts a throwaway one, and removes it with every schema when the tests end); its state is the
    /// text of every row of the store's three tables.
    static let postgreSQL = StoreAdapter(name: "postgresql") { _ in
        guard let uri = ProcessInfo.processInfo.environment["HARDTACK_TEST_POSTGRES"], !uri.isEmpty else {
            throw MissingPostgreSQLServer()
        }
        let schema = "c_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(24)
        return StoreLocation(
            open: { keySource, groups, options throws(SecureStoreError) in
                try PostgreSQLSecureItemStore.open(
                    uri: uri, schema: schema, keySource: keySource, accessGroups: groups, options: options)
            },
            persistedState: {
                guard let connection = try? PostgreSQLConnection(to: PostgreSQLLocation(uri)) else { return [] }
                var state: [UInt8] = []
                for table in ["meta", "items", "group_digests", "group_registry"] {
                    guard let rows = try? connection.query("SELECT t::text FROM \(schema).\(table) t ORDER BY 1") else {
                        state += Array("\(table): none\n".utf8)
                        continue
                    }
                    for row in 0..<rows.rowCount { state += Array(((try? rows.string(row, 0)) ?? "?").utf8) + [10] }
                }
                return state
            })
    }
}

/// Why the PostgreSQL adapter's tests cannot run: they fail, rather than skip.
struct MissingPostgreSQLServer: Error, CustomStringConvertible {
    var description: String {
        "HARDTACK_TEST_POSTGRES is not set: run the tests with Tools/test (it starts a throwaway PostgreSQL), "
            + "or start one with `Tools/postgres start` and export HARDTACK_TEST_POSTGRES=<the URI it prints>"
    }
}
