import BenchSupport
import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``AccountsBenchmark`` on a PostgreSQL server: each store in a database of its own, created for the
/// run and dropped after it; the commands get the store's key through `--key-env`.
enum PostgreSQLAccountsBenchmark {
    /// The environment variable that carries the stores' key to the commands.
    static let keyVariable = "HARDTACK_BENCH_PG_KEY"

    /// Prints the same figures as ``AccountsBenchmark/run(_:)``, with `backend=postgresql`.
    static func run(uri: String, options: BenchmarkOptions) async throws {
        guard let executable = StatusBenchmark.locateExecutable(options.hardtack) else {
            Report.line("accounts skipped=yes reason=no-hardtack-executable (build it, or pass --hardtack PATH)")
            return
        }
        var generator = SeededGenerator(seed: options.seed ?? UInt64.random(in: 1...UInt64.max))
        let key = generator.bytes(32)
        setenv(keyVariable, key.map { String(format: "%02x", $0) }.joined(), 1)
        let listed = options.quick ? 1000 : 10_000
        let repeats = options.quick ? 3 : 7
        let admin = try PostgreSQLConnection(to: PostgreSQLLocation(uri))
        let databases = ["list", "one", "many"].map { "bench_accounts_\($0)_\(getpid())" }
        defer {
            for name in databases { try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
            admin.close()
        }
        var uris: [String] = []
        for name in databases {
            try admin.execute("CREATE DATABASE \(name)")
            guard var components = URLComponents(string: uri) else {
                throw StatusBenchmark.Failure(description: "the URI cannot be read")
            }
            components.path = "/" + name
            uris.append(components.string ?? uri)
        }
        func fill(_ uri: String, count: Int, first: Int) async throws {
            let started = MonotonicClock.now()
            let store = try PostgreSQLSecureItemStore.open(uri: uri, keySource: .key(SecretBytes(key)))
            try await AccountsBenchmark.populate(store, count: count, first: first, generator: &generator)
            Report.line(
                "op=fill backend=postgresql accounts=\(count) seconds="
                    + Report.fixed(Double(MonotonicClock.now() - started) / 1e9, 1))
        }
        func timed(_ uri: String, _ command: [String]) throws -> StatusBenchmark.Figures {
            try AccountsBenchmark.median(repeats) {
                try StatusBenchmark.run(
                    executable: executable, store: "", command: command,
                    storeArguments: ["--store", uri, "--key-env", keyVariable])
            }
        }
        try await fill(uris[0], count: listed, first: 0)
        let list = try timed(uris[0], ["accounts"])
        Report.line(
            "op=accounts backend=postgresql accounts=\(listed) exit_p50_ms=\(Report.fixed(list.exit, 1)) "
                + "listed=\(list.lines) target_ms=\(Report.fixed(AccountsBenchmark.listTarget, 0)) "
                + "met=\(Report.met(list.exit <= AccountsBenchmark.listTarget && list.lines == listed))")
        // `status` of one account among 100,000 (10,000 with --quick), against the same among one.
        let many = options.quick ? 10_000 : 100_000
        try await fill(uris[2], count: many, first: 0)
        let status = ["status", "--account", AccountsBenchmark.name(many / 2)]
        try await fill(uris[1], count: 1, first: many / 2)
        let alone = try timed(uris[1], status)
        let among = try timed(uris[2], status)
        let ratio = among.exit / alone.exit
        Report.line(
            "op=status_among backend=postgresql accounts=\(many) exit_p50_ms=\(Report.fixed(among.exit, 1)) "
                + "alone_exit_p50_ms=\(Report.fixed(alone.exit, 1)) ratio=\(Report.fixed(ratio, 2)) "
                + "signed_in=\(Report.met(among.status == 0 && alone.status == 0)) target_ratio="
                + "\(Report.fixed(AccountsBenchmark.statusRatioTarget, 0)) target_accounts=100000 "
                + "met=\(Report.met(ratio <= AccountsBenchmark.statusRatioTarget && among.status == 0 && many >= 100_000))")
    }
}
