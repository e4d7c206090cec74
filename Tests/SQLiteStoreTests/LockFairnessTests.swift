import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// Writers waiting for another connection's lock keep trying often and evenly, so none is starved
/// into a busy error while others write back to back. Found by the torture bench's contention
/// scenario: with SQLite's own busy handler, which sleeps up to 100 ms between tries once it has waited
/// a while, 24 writers hammering one store for a minute got 24 busy errors and a 25-second wait.
@Suite struct LockFairnessTests {
    let fixture = StoreFixture()

    @Test func writersHammeringOneStoreAreNeverStarvedIntoBusy() throws {
        let path = fixture.path
        let keyFile = fixture.keyFile
        do { _ = try fixture.open() }
        let busy = Locked(0)
        let otherErrors = Locked([String]())
        let writes = Locked(0)
        let deadline = Date().addingTimeInterval(3)
        let done = DispatchGroup()
        for thread in 0..<10 {
            done.enter()
            Thread {
                defer { done.leave() }
                // A short wait makes starvation show quickly; each thread has a connection of its own.
                guard let store = try? SQLiteSecureItemStore.open(
                    at: path, keySource: .keyFile(path: keyFile),
                    options: StoreOptions(durability: .normal, busyTimeoutMilliseconds: 1000))
                else { return }
                let counter = ItemAttributes.genericPassword(service: "counter", account: "\(thread % 2)")
                while Date() < deadline {
                    do {
                        try store.transaction { transaction in
                            let current = (try? transaction.findValue(Int.self, counter)) ?? 0
                            try transaction.addOrUpdate(counter, value: current + 1)
                        }
                        writes.withLock { $0 += 1 }
                    } catch SecureStoreError.storage(let failure) where failure.kind == .busy {
                        busy.withLock { $0 += 1 }
                    } catch {
                        otherErrors.withLock { $0.append("\(error)") }
                    }
                }
            }.start()
        }
        done.wait()
        #expect(busy.withLock { $0 } == 0)
        #expect(otherErrors.withLock { $0 }.isEmpty)
        let store = try fixture.open()
        let total = try (0..<2).map {
            try store.findValue(Int.self, .genericPassword(service: "counter", account: "\($0)"))
        }
        #expect(total.reduce(0, +) == writes.withLock { $0 })
    }
}
