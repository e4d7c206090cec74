/// The workload straight against SQLite and libsodium (``DirectStore``), with none of Hardtack's layers.
final class DirectSubject: WorkloadSubject {
    let name = "direct"
    private let path: String
    private let store: DirectStore
    // Inputs, prepared before any timer: each item's lookup message and secrets.
    private let messages: [[UInt8]]
    private let secrets: [[UInt8]]
    private let newSecrets: [[UInt8]]

    /// Creates a fresh database in `directory` and prepares `workload`'s inputs.
    init(_ workload: Workload, sync: SyncMode, directory: String) throws {
        path = directory + "/direct.db"
        store = try DirectStore(path: path, sync: sync)
        messages = workload.accounts.map(DirectStore.lookupMessage(account:))
        secrets = workload.secrets
        newSecrets = workload.updateSecrets
    }

    func put(_ item: Int) throws { try store.put(messages[item], secret: secrets[item]) }

    func get(_ item: Int) throws -> Int { try store.get(messages[item]) }

    func update(_ item: Int, _ update: Int) throws { try store.update(messages[item], secret: newSecrets[update]) }

    func delete(_ item: Int) throws { try store.delete(messages[item]) }

    func checkpoint() throws { try store.checkpoint() }

    var fileSize: Int { FileSize.of(path) }
}
