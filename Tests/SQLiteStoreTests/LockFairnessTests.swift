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

    /// How long one write takes here with no other writer, in seconds: the median of 30 (an address-sanitized
    /// build, or a machine busy with other suites, is several times slower).
    private func soloWriteSeconds() throws -> Double {
        let store = try fixture.open()
        let item = ItemAttributes.genericPassword(service: "solo", account: "0")
        var durations: [Double] = []
        for _ in 0..<30 {
            let start = Date()
            try Self.increment(item, in: store)
            durations.append(Date().timeIntervalSince(start))
        }
        return durations.sorted()[durations.count / 2]
    }

    /// The write every writer makes: the counter `item` read and written back one higher, in one transaction.
    private static func increment(_ item: ItemAttributes, in store: SQLiteSecureItemStore) throws {
        try store.transaction { transaction in
            let current = (try? transaction.findValue(Int.self, item)) ?? 0
            try transaction.addOrUpdate(item, value: current + 1)
        }
    }

    @Test func writersHammeringOneStoreAreNeverStarvedIntoBusy() throws {
        // Each round is judged whole (no other errors, every acknowledged write counted); a round with busy
        // errors is run once more, calibrated afresh. Starvation is what SQLite's own handler gives every
        // round (13 to 17 busy errors in each here); a second chance absorbs a moment of ambient load (the
        // whole suite running at once under the address sanitizer) that the calibration did not see, as
        // happened once in CI: 4 busy errors.
        var busy = try hammerRound()
        if busy > 0 { busy = try hammerRound() }
        #expect(busy == 0, "no writer starved in either round")
    }

    /// Ten writers hammering two counters for three waits; the busy errors they got.
    private func hammerRound() throws -> Int {
        let path = fixture.path
        let keyFile = fixture.keyFile
        // A short wait makes starvation show quickly: 1 s, or longer where a write is slow (a sanitized
        // build, a loaded machine), so that what is judged is how the waiters try, not how fast the machine
        // is. The run lasts three waits: with SQLite's own handler, 10 writers for 3 s at 1 s got 13 to 17
        // busy errors here; with ours, none.
        // A write alone takes about 0.4 ms in a debug build here: 2,000 times that, 0.8 s, is under the floor.
        let waitMilliseconds = max(1000, Int(try soloWriteSeconds() * 2_000_000))
        let busy = Locked(0)
        let otherErrors = Locked([String]())
        let writes = Locked(0)
        let store = try fixture.open()
        // The counters as the round begins: none before the first.
        let before = (0..<2).map {
            (try? store.findValue(Int.self, .genericPassword(service: "counter", account: "\($0)"))) ?? 0
        }
        let deadline = Date().addingTimeInterval(3 * Double(waitMilliseconds) / 1000)
        let done = DispatchGroup()
        for thread in 0..<10 {
            done.enter()
            Thread {
                defer { done.leave() }
                // Each thread has a connection of its own.
                guard let store = try? SQLiteSecureItemStore.open(
                    at: path, keySource: .keyFile(path: keyFile),
                    options: StoreOptions(durability: .normal, busyTimeoutMilliseconds: Int32(waitMilliseconds)))
                else { return }
                let counter = ItemAttributes.genericPassword(service: "counter", account: "\(thread % 2)")
                while Date() < deadline {
                    do {
                        try Self.increment(counter, in: store)
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
        #expect(otherErrors.withLock { $0 }.isEmpty)
        let after = try (0..<2).map {
            try store.findValue(Int.self, .genericPassword(service: "counter", account: "\($0)"))
        }
        #expect(after.reduce(0, +) - before.reduce(0, +) == writes.withLock { $0 })
        let found = busy.withLock { $0 }
        if found > 0 { print("LockFairnessTests: \(found) busy errors in a round at \(waitMilliseconds) ms") }
        return found
    }
}
