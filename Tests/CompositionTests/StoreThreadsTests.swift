import Composition
import Data
import Domain
import Foundation
import TestSupport
import Testing

/// Every call the app offers can be awaited from any task without holding Swift's cooperative pool:
/// the session repository's store calls, whichever use case makes them, run on the store's own threads
/// (``StoreThreads``). Whether the pool would otherwise starve depends on the platform and on everything
/// else the process runs (docs/measurements.md has the measurement); a test inside the shared test process
/// could not tell, so this one checks where the store calls run.
@Suite struct StoreThreadsTests {
    @Test func theUseCasesStoreCallsRunOnTheStoreThreads() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("keychain.db")
        let configuration = AppConfiguration(
            store: StoreConfiguration(storePath: path, key: .keyFile(path: path + ".key")),
            server: .inProcess(ScriptedHTTPClient()))
        let app = try await AppContainer(configuration)
        let recorder = ThreadRecordingStore(app.keychain.items)
        let repository = SecureStoreSessionRepository(store: recorder, account: .default)
        #expect(!StoreThreads.isCurrent)
        #expect(try await repository.load() == nil)
        let decision = await ValidateAuthentication(repository: repository, policy: AuthenticationPolicy(), now: { Date() })()
        #expect(decision == .signedOut)
        #expect(!recorder.calls.isEmpty)
        #expect(recorder.calls.allSatisfy { $0 }, "store calls made off the store's threads: \(recorder.calls)")
    }

    @Test func theStoresAwaitedOperationsRunOnTheStoreThreads() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("keychain.db")
        let configuration = StoreConfiguration(storePath: path, key: .keyFile(path: path + ".key"))
        let store = ThreadRecordingStore(try await configuration.open().items)
        let item = ItemAttributes.genericPassword(service: "s", account: "a")
        try await store.add(item, data: SecretBytes(utf8: "secret"))
        #expect(try await store.findString(item) == "secret")
        #expect(try await store.delete(item) == 1)
        #expect(recorder(store).count == 3)
        #expect(recorder(store).allSatisfy { $0 })
        // Synchronous code keeps the synchronous operations, on the caller's thread.
        let offThreads = { () throws -> Int in try store.delete(item) }
        #expect(try offThreads() == 0)
        #expect(recorder(store).last == false)
    }

    private func recorder(_ store: ThreadRecordingStore) -> [Bool] { store.calls }
}
