@testable import Composition
import Data
import Domain
import Foundation
import TestSupport
import Testing

/// The overview of every account's session says why it cannot be listed as the store said it: only
/// damage is an integrity failure ("restore from a backup"); a locked store or a server that is down is
/// a store that cannot be used now.
@Suite struct SessionDirectoryTests {
    static let unavailable = SecureStoreError.storage(
        StorageFailure(backend: "PostgreSQL", kind: .unavailable, message: "the database server cannot be reached"))

    @Test(arguments: [SecureStoreError.locked, unavailable, .integrityFailure("a row does not authenticate")])
    func aListingThatFailsKeepsTheStoresOwnError(_ failure: SecureStoreError) async {
        await #expect(throws: failure) {
            _ = try await SessionDirectory.overview(
                of: FailingStore(failure), policy: AuthenticationPolicy(), now: { Date() })
        }
    }

    @Test func aStoreWithNoSessionListsNone() async throws {
        let overview = try await SessionDirectory.overview(
            of: FailingStore(.itemNotFound), policy: AuthenticationPolicy(), now: { Date() })
        #expect(overview.isEmpty)
    }

    @Test func anOpenStoreListsItsAccounts() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("keychain.db")
        let configuration = StoreConfiguration(storePath: path, key: .keyFile(path: path + ".key"))
        let overview = try await SessionDirectory.overview(store: configuration)
        #expect(overview.isEmpty)
    }
}
