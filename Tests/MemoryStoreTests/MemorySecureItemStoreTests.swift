import Data
import Domain
import MemoryStore
import StoreCore
import TestSupport
import Testing

/// The in-memory handle: handles on one database share one store, handles on two do not, and a wrong
/// key writes nothing. (Keychain semantics are proven for every adapter in StoreConformanceTests.)
@Suite struct MemorySecureItemStoreTests {
    private let key = SecretBytes(Array(repeating: 7, count: 32))
    private let options = StoreOptions(passphraseCost: .interactive)

    @Test func handlesOnOneDatabaseShareItsItemsAndOtherDatabasesDoNot() throws {
        let database = MemoryDatabase()
        let first = try MemorySecureItemStore.open(in: database, keySource: .key(key), options: options)
        let second = try MemorySecureItemStore.open(in: database, keySource: .key(key), options: options)
        try first.add(.genericPassword(service: "s", account: "a"), data: secret("shared"))
        #expect(try second.findString(.genericPassword(service: "s")) == "shared")

        let elsewhere = try MemorySecureItemStore.open(in: MemoryDatabase(), keySource: .key(key), options: options)
        #expect(throws: SecureStoreError.itemNotFound) { try elsewhere.find(.genericPassword(service: "s")) }
        #expect(try second.verify().soundItems == 1)
    }

    @Test func aWrongKeyIsRefusedAndCommitsNothing() throws {
        let database = MemoryDatabase()
        _ = try MemorySecureItemStore.open(in: database, keySource: .key(key), options: options)
        let commits = database.commitCount
        #expect(commits == 1)
        #expect(throws: SecureStoreError.wrongKey) {
            try MemorySecureItemStore.open(
                in: database, keySource: .key(SecretBytes(Array(repeating: 8, count: 32))), options: options)
        }
        #expect(database.commitCount == commits)
    }
}
