import Composition
import Testing

/// ``AppContainer/withStoreThreads(_:)``: the work, the actors it calls and so their store calls run on
/// threads of the app's own, so that store calls waiting on a lock or on the server never hold Swift's
/// cooperative pool. Whether the pool would otherwise starve depends on the platform and on everything
/// else the process runs (docs/postgresql.md has the measurement); a test inside the shared test process
/// could not tell, so this one checks where the work runs.
@Suite struct StoreThreadsTests {
    /// An actor with the default executor, as the app's use cases are (`RefreshSession`).
    actor Recorder {
        func isOnStoreThreads() -> Bool { AppContainer.isOnStoreThreads }
    }

    @Test func theWorkAndTheActorsItCallsRunOnTheStoreThreads() async {
        let recorder = Recorder()
        #expect(!AppContainer.isOnStoreThreads)
        #expect(await !recorder.isOnStoreThreads())
        let inside = await AppContainer.withStoreThreads { () async -> (Bool, Bool) in
            (AppContainer.isOnStoreThreads, await recorder.isOnStoreThreads())
        }
        #expect(inside == (true, true))
    }
}
