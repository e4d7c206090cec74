import Data
import Domain
import Foundation
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 5: several processes, several threads each, read-modify-write on shared counters in one
/// store for a fixed time. Every acknowledged increment must be in the final counts, and no
/// operation may fail with "busy".
enum ContentionScenario {
    static let scenario = Scenario(
        number: 5, name: "contention",
        title: "processes × threads doing read-modify-write on shared counters: lost updates 0, busy errors 0, "
            + "p99 latency",
        run: run)

    static func run(_ context: ScenarioContext) {
        let directory = context.directory("contention")
        let path = makeDirectory(directory + "/store") + "/store.db"
        let key = context.random.bytes(32)
        let processes = context.mode.pick(3, 4)
        let threads = context.mode.pick(4, 6)
        let counters = context.mode.pick(4, 8)
        let seconds = context.mode.pick(8, 60)
        ContentionRun.run(
            context, worker: "contender", arguments: ["--store", path, "--key", hex(key)], processes: processes,
            threads: threads, counters: counters, seconds: seconds, ownHandles: "half with a handle of their own"
        ) { try SQLiteSecureItemStore.open(at: path, keySource: .key(SecretBytes(key))) }
    }
}
