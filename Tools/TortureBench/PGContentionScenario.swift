import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore

/// Scenario 12: several processes, several threads each, read-modify-write on shared counters in one
/// PostgreSQL store for a fixed time, each increment one transaction. Every acknowledged increment
/// must be in the final counts, none may be there unacknowledged, and no operation may fail with
/// "busy" (writers queue on the rows digest row's lock, for at most 8 s).
enum PGContentionScenario {
    /// The scenario, for the catalog.
    static let scenario = Scenario(
        number: 12, name: "pg-contention",
        title: "PostgreSQL: processes × threads doing read-modify-write on shared counters: lost updates 0, "
            + "busy errors 0",
        run: run)

    /// Runs the scenario.
    static func run(_ context: ScenarioContext) {
        guard let server = PostgresServer.start(context) else { return }
        defer { server.stop() }
        let key = context.random.bytes(32)
        let processes = context.mode.pick(3, 4)
        let threads = context.mode.pick(4, 6)
        let counters = context.mode.pick(4, 8)
        let seconds = context.mode.pick(10, 60)
        ContentionRun.run(
            context, worker: "pg-contender", arguments: ["--key", hex(key)],
            environment: ["HARDTACK_TORTURE_PG": server.uri], processes: processes, threads: threads,
            counters: counters, seconds: seconds, ownHandles: "half with a connection of their own"
        ) { try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: .key(SecretBytes(key))) }
    }
}
