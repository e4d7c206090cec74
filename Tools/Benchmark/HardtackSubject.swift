import Data
import Domain
import SQLiteStore
import StoreCore

/// The workload through Hardtack's public store API: `SQLiteSecureItemStore` opened with a key file.
final class HardtackSubject: WorkloadSubject {
    /// A failed check of the store's answers (an item missing, a wrong count): the run is invalid.
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    let name = "hardtack"
    private let path: String
    private let store: SQLiteSecureItemStore
    // Inputs, prepared before any timer: the queries, and the secrets already in wiped-on-release memory.
    private let items: [ItemAttributes]
    private let secrets: [SecretBytes]
    private let newSecrets: [SecretBytes]

    /// Opens a fresh store in `directory` and prepares `workload`'s inputs.
    init(_ workload: Workload, sync: SyncMode, directory: String) throws {
        path = directory + "/hardtack.db"
        store = try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: path + ".key"), options: StoreOptions(durability: sync.durability))
        items = workload.accounts.map { ItemAttributes.genericPassword(service: Workload.service, account: $0) }
        secrets = workload.secrets.map { SecretBytes($0) }
        newSecrets = workload.updateSecrets.map { SecretBytes($0) }
    }

    func put(_ item: Int) throws {
        try store.add(items[item], data: secrets[item])
    }

    func get(_ item: Int) throws -> Int {
        let found = try store.find(items[item], limit: .one, returning: .data)
        guard found.count == 1, let data = found[0].data else { throw Mismatch(description: "a get found no data") }
        return data.count
    }

    func update(_ item: Int, _ update: Int) throws {
        let changed = try store.update(items[item], attributes: nil, data: newSecrets[update])
        guard changed == 1 else { throw Mismatch(description: "an update changed \(changed) items") }
    }

    func delete(_ item: Int) throws {
        let removed = try store.delete(items[item])
        guard removed == 1 else { throw Mismatch(description: "a delete removed \(removed) items") }
    }

    func checkpoint() throws { try store.checkpoint() }

    var fileSize: Int { FileSize.of(path) }
}
