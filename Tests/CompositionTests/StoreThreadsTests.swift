import Composition
import Data
import Domain
import Foundation
import TestSupport
import Testing

/// Every call the app offers can be awaited from any task without holding Swift's cooperative pool:
/// the store calls of the app's own use cases (sign-in, refresh, sign-out, the launch decision) run on
/// the store's own threads (``StoreThreads``). Whether the pool would otherwise starve depends on the platform and on everything
/// else the process runs (docs/measurements.md has the measurement); a test inside the shared test process
/// could not tell, so this one checks where the store calls run.
@Suite struct StoreThreadsTests {
    @Test func theAppsSignInRefreshAndSignOutDoTheirStoreWorkOnTheStoreThreads() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("keychain.db")
        let http = ScriptedHTTPClient()
        let json = [("Content-Type", "application/json")]
        http.reply(
            "/oauth/token", status: 200, headers: json,
            body: #"{"access_token":"at1","token_type":"Bearer","expires_in":300,"refresh_token":"rt1"}"#)
        http.reply(
            "/oauth/token", status: 200, headers: json,
            body: #"{"access_token":"at2","token_type":"Bearer","expires_in":300,"refresh_token":"rt2"}"#)
        http.reply("/api/me", status: 200, body: #"{"sub":"alice","name":"Alice"}"#)
        http.reply("/oauth/revoke", status: 200)
        let store = StoreConfiguration(storePath: path, key: .keyFile(path: path + ".key"))
        let configuration = AppConfiguration(store: store, server: .inProcess(http))
        // The app's own container, its store calls recorded on their way to the store it opened.
        let keychain = try await store.open()
        let recorder = ThreadRecordingStore(keychain.items)
        let app = await AppContainer(configuration, keychain: keychain.wrappingItems { _ in recorder }, stored: nil)
        #expect(!StoreThreads.isCurrent)

        let signedIn = try await app.signIn(.password(username: "alice", password: SecretBytes(utf8: "wonderland")))
        let afterSignIn = recorder.calls.count
        #expect(afterSignIn > 0, "sign-in wrote nothing through the app's store")
        #expect(await app.validateAuthentication().showsMainFlow)

        // A refresh claims, marks its request sent, then completes: three writes at least.
        let refreshed = try await app.refreshNow()
        #expect(refreshed.refreshToken.value.revealedString() == "rt2")
        #expect(!refreshed.refreshToken.isSameToken(as: signedIn.refreshToken))
        let afterRefresh = recorder.calls.count
        #expect(afterRefresh >= afterSignIn + 3, "the refresh made \(afterRefresh - afterSignIn) store calls")

        let signedOut = try await app.signOut()
        #expect(signedOut.deletedLocalSession)
        #expect(recorder.calls.count > afterRefresh, "sign-out deleted nothing through the app's store")
        #expect(await app.validateAuthentication() == .signedOut)

        #expect(recorder.calls.allSatisfy { $0 }, "store calls made off the store's threads: \(recorder.calls)")
        #expect(http.requests.map(\.path) == ["/oauth/token", "/api/me", "/oauth/token", "/oauth/revoke"])
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
