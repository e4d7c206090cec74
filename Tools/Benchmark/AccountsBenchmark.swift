import BenchSupport
@_spi(HardtackTools) import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore

/// `hardtack accounts` over a store of many sessions, and `hardtack status --account A` of one account
/// among many against the same among one: wall times of the real executable, spawn to exit.
enum AccountsBenchmark {
    /// Target for listing 10,000 accounts, in milliseconds.
    static let listTarget = 1000.0
    /// Target ratio of `status` among 100,000 accounts to `status` among one.
    static let statusRatioTarget = 2.0

    /// Prints the figures (smaller stores with `--quick`).
    static func run(_ options: BenchmarkOptions) async throws {
        guard let executable = StatusBenchmark.locateExecutable(options.hardtack) else {
            Report.line("accounts skipped=yes reason=no-hardtack-executable (build it, or pass --hardtack PATH)")
            return
        }
        var generator = SeededGenerator(seed: options.seed ?? UInt64.random(in: 1...UInt64.max))
        let directory = try TemporaryDirectory(under: options.directory ?? NSTemporaryDirectory())
        // Filled a thousand accounts per transaction, adding items only: a session written one by one
        // (replacing whatever is there) confirms each "none" with a pass over the table, which makes
        // filling 100,000 accounts take hours (docs/performance.md).
        let listed = options.quick ? 1000 : 10_000
        let repeats = options.quick ? 3 : 7

        let listStore = try await fill(directory.subdirectory("list"), count: listed, generator: &generator)
        let list = try median(repeats) {
            try StatusBenchmark.run(executable: executable, store: listStore, command: ["accounts"])
        }
        Report.line(
            "op=accounts accounts=\(listed) exit_p50_ms=\(Report.fixed(list.exit, 1)) listed=\(list.lines) "
                + "target_ms=\(Report.fixed(listTarget, 0)) met=\(Report.met(list.exit <= listTarget && list.lines == listed))")

        // `status` of one account among 100,000 (10,000 with --quick), against the same among one.
        let many = options.quick ? 10_000 : 100_000
        let manyStore = try await fill(directory.subdirectory("many"), count: many, generator: &generator)
        let status = ["status", "--account", name(many / 2)]
        let oneStore = try await fill(directory.subdirectory("one"), count: 1, first: many / 2, generator: &generator)
        let alone = try median(repeats) { try StatusBenchmark.run(executable: executable, store: oneStore, command: status) }
        let among = try median(repeats) {
            try StatusBenchmark.run(executable: executable, store: manyStore, command: status)
        }
        let ratio = among.exit / alone.exit
        Report.line(
            "op=status_among accounts=\(many) exit_p50_ms=\(Report.fixed(among.exit, 1)) alone_exit_p50_ms="
                + "\(Report.fixed(alone.exit, 1)) ratio=\(Report.fixed(ratio, 2)) signed_in=\(Report.met(among.status == 0 && alone.status == 0)) "
                + "target_ratio=\(Report.fixed(statusRatioTarget, 0)) target_accounts=100000 "
                + "met=\(Report.met(ratio <= statusRatioTarget && among.status == 0 && many >= 100_000))")
    }

    /// The name of account number `index`.
    static func name(_ index: Int) -> String { "user-" + String(index + 1_000_000).dropFirst() }

    /// A key-file store in `directory` holding `count` signed-in sessions, accounts numbered from
    /// `first`; returns its path.
    static func fill(_ directory: String, count: Int, first: Int = 0, generator: inout SeededGenerator) async throws -> String {
        let path = directory + "/keychain.db"
        let started = MonotonicClock.now()
        // Written without an fsync per commit, to fill it sooner; the commands read it with the defaults.
        let store = try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: path + ".key"), options: StoreOptions(durability: .normal))
        try await populate(store, count: count, first: first, generator: &generator)
        try store.checkpoint()
        Report.line("op=fill accounts=\(count) seconds=\(Report.fixed(Double(MonotonicClock.now() - started) / 1e9, 1))")
        return path
    }

    /// Writes `count` signed-in sessions into `store`, accounts numbered from `first`, a thousand
    /// accounts per transaction (``SecureStoreSessionRepository/addSessions(_:to:)``).
    static func populate(_ store: any SecureItemStore, count: Int, first: Int, generator: inout SeededGenerator) async throws {
        let now = Date()
        var next = first
        while next < first + count {
            let end = min(first + count, next + 1000)
            var sessions: [(account: AccountName, session: Session)] = []
            for index in next..<end {
                guard let account = AccountName(name(index)) else { throw StatusBenchmark.Failure(description: "bad name") }
                let session = Session(
                    accessToken: try AccessToken(
                        value: SecretBytes(Workload.secret(&generator)), issuedAt: now, expiresAt: now.addingTimeInterval(86_400)),
                    refreshToken: try RefreshToken(value: SecretBytes(Workload.secret(&generator))),
                    user: User(id: "u\(index)", name: "User \(index)"), method: .password)
                sessions.append((account, session))
            }
            try await SecureStoreSessionRepository.addSessions(sessions, to: store)
            next = end
        }
    }

    /// The run with the median exit time of `count` runs, after one to warm the page cache.
    static func median(_ count: Int, _ body: () throws -> StatusBenchmark.Figures) throws
        -> StatusBenchmark.Figures
    {
        _ = try body()
        let runs = try (0..<count).map { _ in try body() }.sorted { $0.exit < $1.exit }
        return runs[runs.count / 2]
    }
}
