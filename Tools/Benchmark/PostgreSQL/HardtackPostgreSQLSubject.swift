import Data
import Domain
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

/// The workload through Hardtack's public store API on PostgreSQL: `PostgreSQLSecureItemStore`.
final class HardtackPostgreSQLSubject: WorkloadSubject {
    let name = "hardtack"
    private let store: PostgreSQLSecureItemStore
    private let uri: String
    private let schema: String
    private let items: [ItemAttributes]
    private let secrets: [SecretBytes]
    private let newSecrets: [SecretBytes]
    /// Whether this subject made the store (and drops its schema when it goes).
    private let dropsSchema: Bool

    /// Opens a fresh store in schema `schema` on the server at `uri` and prepares `workload`'s inputs.
    /// `group` is the access group of the handle (a tenant of its own).
    init(
        _ workload: Workload, uri: String, schema: String, prefix: String = "", dropsSchema: Bool = true,
        group: String = "default"
    ) throws {
        self.uri = uri
        self.schema = schema
        self.dropsSchema = dropsSchema
        store = try PostgreSQLSecureItemStore.open(
            uri: uri, schema: schema, keySource: PostgreSQLBenchmark.keySource, accessGroups: [group])
        items = workload.accounts.map {
            ItemAttributes.genericPassword(service: Workload.service, account: prefix + $0)
        }
        secrets = workload.secrets.map { SecretBytes($0) }
        newSecrets = workload.updateSecrets.map { SecretBytes($0) }
    }

    deinit {
        if dropsSchema, let connection = try? PostgreSQLConnection(to: PostgreSQLLocation(uri)) {
            try? connection.execute("DROP SCHEMA \(schema) CASCADE")
        }
    }

    func put(_ item: Int) throws { try store.add(items[item], data: secrets[item]) }

    func get(_ item: Int) throws -> Int {
        let found = try store.find(items[item], limit: .one, returning: .data)
        guard found.count == 1, let data = found[0].data else {
            throw HardtackSubject.Mismatch(description: "a get found no data")
        }
        return data.count
    }

    func update(_ item: Int, _ update: Int) throws {
        let changed = try store.update(items[item], attributes: nil, data: newSecrets[update])
        guard changed == 1 else { throw HardtackSubject.Mismatch(description: "an update changed \(changed) items") }
    }

    func delete(_ item: Int) throws {
        let removed = try store.delete(items[item])
        guard removed == 1 else { throw HardtackSubject.Mismatch(description: "a delete removed \(removed) items") }
    }

    func checkpoint() throws {}

    var fileSize: Int {
        guard let connection = try? PostgreSQLConnection(to: PostgreSQLLocation(uri)),
            let result = try? connection.query("SELECT pg_total_relation_size('\(schema).items')"),
            let size = try? result.int64(0, 0)
        else { return 0 }
        return Int(size)
    }
}
