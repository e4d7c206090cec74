import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

/// The store's side of one refresh on PostgreSQL, as ``RefreshSession`` runs it (claim, mark sent,
/// complete: three short transactions), and how soon a waiting instance takes the winner's tokens.
enum RefreshProtocolBenchmark {
    /// Target p50 of claim + mark + complete, in milliseconds.
    static let protocolTarget = 5.0
    /// Target p99 of a waiter's wake-up after the winner's completion, in milliseconds.
    static let wakeTarget = 50.0

    /// Prints both figures for the server at `uri`.
    static func run(uri: String, rounds: Int) async throws {
        let schema = PostgreSQLBenchmark.schemaName("refresh", 0)
        defer {
            if let connection = try? PostgreSQLConnection(to: PostgreSQLLocation(uri)) {
                try? connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            }
        }
        let winnerStore = try PostgreSQLSecureItemStore.open(
            uri: uri, schema: schema, keySource: PostgreSQLBenchmark.keySource)
        let waiterStore = try PostgreSQLSecureItemStore.open(
            uri: uri, schema: schema, keySource: PostgreSQLBenchmark.keySource)
        let lock = try winnerStore.takeInstanceLock()
        defer { lock.release() }
        let winner = SecureStoreSessionRepository(store: winnerStore, claimantIsGone: lock.isGone)
        let waiter = SecureStoreSessionRepository(store: waiterStore, claimantIsGone: lock.isGone)
        var current = try session(0)
        try await winner.replace(with: current)
        let owner = "bench" + lock.ownerTag

        var protocolTimes: [UInt64] = []
        for round in 1...rounds {
            let next = try session(round)
            let start = MonotonicClock.now()
            guard case .claimed = try await winner.claimRefresh(replacing: current, owner: owner, lease: 45, now: Date()),
                try await winner.markRefreshSent(replacing: current, owner: owner),
                try await winner.completeRefresh(replacing: current, with: next, owner: owner)
            else { throw HardtackSubject.Mismatch(description: "an uncontended refresh did not go through") }
            protocolTimes.append(MonotonicClock.now() - start)
            current = next
        }
        report("claim_mark_complete", LatencySummary(nanoseconds: protocolTimes), target: protocolTarget, p99: false)

        // A waiter (another instance's use case, polling as it does) wakes once the winner completes.
        let policy = AuthenticationPolicy()
        var wakeTimes: [UInt64] = []
        for round in 1...max(10, rounds / 10) {
            let next = try session(rounds + round)
            guard case .claimed = try await winner.claimRefresh(replacing: current, owner: owner, lease: 45, now: Date())
            else { throw HardtackSubject.Mismatch(description: "the winner's claim failed") }
            let refresher = RefreshSession(
                gateway: NoGateway(), repository: waiter, policy: policy, ownerID: "waiter", now: { Date() })
            let stale = current
            let waiting = Task { () -> UInt64 in
                _ = try await refresher.refresh(replacing: stale)
                return MonotonicClock.now()
            }
            // The winner completes at a moment spread evenly over the waiter's poll period, so the
            // figures cover every phase of its polling, the worst included.
            try await Task.sleep(for: .microseconds(30_000 + Int.random(in: 0..<(policy.refreshPollMilliseconds * 1000))))
            guard try await winner.markRefreshSent(replacing: current, owner: owner),
                try await winner.completeRefresh(replacing: current, with: next, owner: owner)
            else { throw HardtackSubject.Mismatch(description: "the winner's refresh failed") }
            let completed = MonotonicClock.now()
            wakeTimes.append(try await waiting.value - completed)
            current = next
        }
        report("waiter_wake", LatencySummary(nanoseconds: wakeTimes), target: wakeTarget, p99: true)
    }

    private static func report(_ name: String, _ summary: LatencySummary, target: Double, p99: Bool) {
        let measured = (p99 ? summary.p99 : summary.p50) / 1000
        Report.line(
            "op=\(name) backend=postgresql n=\(summary.count) p50_ms=\(Report.fixed(summary.p50 / 1000, 2)) "
                + "p99_ms=\(Report.fixed(summary.p99 / 1000, 2)) target_\(p99 ? "p99" : "p50")_ms=\(Report.fixed(target, 0)) "
                + "met=\(Report.met(measured <= target))")
    }

    private static func session(_ serial: Int) throws -> Session {
        Session(
            accessToken: try AccessToken(
                value: SecretBytes(Array("access-\(serial)-".utf8) + Array(repeating: 0x61, count: 600)),
                issuedAt: Date(), expiresAt: Date() + 300),
            refreshToken: try RefreshToken(value: SecretBytes(Array("refresh-\(serial)".utf8))),
            user: User(id: "u1", name: "Bench"), method: .password)
    }

    /// The waiter must never reach the server: it takes the winner's tokens.
    private struct NoGateway: AuthenticationGateway {
        func signIn(_ credentials: Credentials) async throws(AuthenticationError) -> Session {
            throw .temporarilyUnavailable("the benchmark signs nobody in")
        }
        func refresh(_ session: Session) async throws(AuthenticationError) -> TokenRefresh {
            throw .temporarilyUnavailable("a waiter presented a refresh token")
        }
        func revoke(_ refreshToken: RefreshToken) async throws(AuthenticationError) {}
    }
}
