import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import Gateway

/// The gateway's own key in the store: made once, by whichever instance asks first, and read by the rest
/// without an add (which a shared PostgreSQL would log as a refused duplicate).
@Suite struct GatewayKeysTests {
    let directory = TemporaryDirectory()

    func store(counting adds: Locked<Int>) throws -> PortOnlyStore {
        let base = try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
        var store = PortOnlyStore(base: base)
        store.onAdd = { adds.withLock { $0 += 1 } }
        return store
    }

    @Test func theFirstStartMakesTheKeyAndLaterOnesReadItWithoutAnAdd() async throws {
        let adds = Locked(0)
        let store = try store(counting: adds)
        let first = try await GatewayKeys.loginKey(in: store)
        #expect(first.count == 32 && adds.withLock { $0 } == 1)
        let again = try await GatewayKeys.loginKey(in: store)
        #expect(again.constantTimeEquals(first), "the same key")
        #expect(adds.withLock { $0 } == 1, "read, not added again")
    }

    @Test func instancesStartingAtOnceAllGetTheOneKey() async throws {
        let store = try store(counting: Locked(0))
        let keys = try await withThrowingTaskGroup(of: SecretBytes.self) { group in
            for _ in 0..<8 { group.addTask { try await GatewayKeys.loginKey(in: store) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(keys.count == 8 && keys.allSatisfy { $0.constantTimeEquals(keys[0]) })
    }
}
