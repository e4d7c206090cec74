/// The workload straight against libpq and libsodium (``DirectPostgreSQLStore``): `direct`, or with
/// `digest` the protection's floor, `floor` (each write with a digest row's update, one round trip).
final class DirectPostgreSQLSubject: WorkloadSubject {
    let name: String
    private let store: DirectPostgreSQLStore
    private let messages: [[UInt8]]
    private let secrets: [[UInt8]]
    private let newSecrets: [[UInt8]]

    /// Creates a fresh table in schema `schema` on the server at `uri` and prepares `workload`'s inputs.
    init(
        _ workload: Workload, uri: String, schema: String, prefix: String = "", creating: Bool = true,
        digest: Bool = false
    ) throws {
        name = digest ? "floor" : "direct"
        store = try DirectPostgreSQLStore(uri: uri, schema: schema, creating: creating, digest: digest)
        messages = workload.accounts.map { DirectStore.lookupMessage(account: prefix + $0) }
        secrets = workload.secrets
        newSecrets = workload.updateSecrets
    }

    func put(_ item: Int) throws { try store.put(messages[item], secret: secrets[item]) }
    func get(_ item: Int) throws -> Int { try store.get(messages[item]) }
    func update(_ item: Int, _ update: Int) throws { try store.update(messages[item], secret: newSecrets[update]) }
    func delete(_ item: Int) throws { try store.delete(messages[item]) }
    func checkpoint() throws {}
    var fileSize: Int { store.tableSize }
}
