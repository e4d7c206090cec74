import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import Testing

/// A store of its own on the test server: a fresh schema per test, dropped when the test ends, so
/// tests running at once never share rows.
final class TestStore: Sendable {
    /// The schema holding this test's tables.
    let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
    /// The store's 32-byte key.
    let key = TestStore.randomKey()

    /// 32 random bytes, a store key.
    static func randomKey() -> SecretBytes {
        SecretBytes(count: 32) { buffer in
            for index in buffer.indices { buffer[index] = UInt8.random(in: 0...255) }
        }
    }

    /// The application name of this test's store connections, to find their server processes.
    var applicationName: String { "hardtack-" + schema }

    /// Opens a handle on the test's store (creating it the first time, of format `format`).
    func open(groups: [String] = ["default"], key: SecretBytes? = nil, format: UInt8 = StoreHeader.currentVersion)
        throws -> PostgreSQLSecureItemStore
    {
        var options = StoreOptions(passphraseCost: .interactive)
        options.newStoreFormat = format
        return try PostgreSQLSecureItemStore.open(
            uri: TestServer.uri(), schema: schema, keySource: .key(key ?? self.key), accessGroups: groups,
            options: options,
            connectionOptions: PostgreSQLConnectionOptions(applicationName: applicationName))
    }

    /// Ends the server processes of this test's store connections, as a server restart or a network
    /// cut would; returns how many there were.
    @discardableResult
    func terminateStoreConnections() throws -> Int {
        let result = try sql().query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            [.text(applicationName)])
        return result.rowCount
    }

    /// A connection for editing the store's rows behind its back, as someone with SQL access would.
    func sql() throws -> PostgreSQLConnection { try TestServer.connect() }

    deinit {
        if let connection = try? TestServer.connect() {
            try? connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        }
    }
}

