import Data
import Foundation
import Locking

/// The gateway's counters, in Prometheus's text format at `/metrics`: requests by route and status,
/// refreshes and the waits behind them, sessions created and ended, the upstreams' latency (to their
/// answer's head), the answers whose stream was cut short, and the browser connections open and the times
/// a loop was full.
final class GatewayMetrics: Sendable {
    /// A route and a status, as requests are counted.
    private struct RouteStatus: Hashable {
        let route: String
        let status: Int
    }

    private struct State {
        var requests: [RouteStatus: Int] = [:]
        var sessionsCreated = 0
        var sessionsEnded = 0
        var upstreamCalls = 0
        var upstreamSeconds = 0.0
        var upstreamBuckets = [Int](repeating: 0, count: GatewayMetrics.bounds.count)
        var streamsCut = 0
        var tokensRevoked = 0
        var sessionReadsFromMemory = 0
        var sessionReadsFromStore = 0

        /// This tally and `other` together.
        mutating func add(_ other: State) {
            requests.merge(other.requests, uniquingKeysWith: +)
            sessionsCreated += other.sessionsCreated
            sessionsEnded += other.sessionsEnded
            upstreamCalls += other.upstreamCalls
            upstreamSeconds += other.upstreamSeconds
            for index in upstreamBuckets.indices { upstreamBuckets[index] += other.upstreamBuckets[index] }
            streamsCut += other.streamsCut
            tokensRevoked += other.tokensRevoked
            sessionReadsFromMemory += other.sessionReadsFromMemory
            sessionReadsFromStore += other.sessionReadsFromStore
        }
    }

    /// The upstream latency histogram's bucket bounds, in seconds.
    static let bounds: [Double] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30]
    /// Counted by each thread apart (a server's loops count every request, and would otherwise wait for
    /// one another's lock), and added up for the exposition.
    private let state = PerThread { State() }
    /// Refreshes this instance presented to the issuer, and calls that waited on one.
    let refreshes = Locked(0)
    let refreshWaits = Locked(0)

    /// Counts a session read for a call: from memory (nothing committed since it was read), or from the store.
    func sessionRead(fromMemory: Bool) {
        state.withLock { state in
            if fromMemory {
                state.sessionReadsFromMemory += 1
            } else {
                state.sessionReadsFromStore += 1
            }
        }
    }

    /// Every thread's counts added up.
    private func snapshot() -> State {
        var total = State()
        state.forEach { total.add($0) }
        return total
    }

    /// Counts a request.
    func record(route: String, status: Int, duration: Duration) {
        state.withLock { $0.requests[RouteStatus(route: route, status: status), default: 0] += 1 }
    }

    /// Counts a session signed in, or ended.
    func sessionCreated() { state.withLock { $0.sessionsCreated += 1 } }
    func sessionEnded() { state.withLock { $0.sessionsEnded += 1 } }

    /// Counts refresh tokens of sessions ended without their cookie that the issuer revoked.
    func tokensRevoked(_ count: Int) { state.withLock { $0.tokensRevoked += count } }

    /// Counts an answer whose stream ended early.
    func streamCut() { state.withLock { $0.streamsCut += 1 } }

    /// Counts an upstream call that took `seconds`.
    func upstream(seconds: Double) {
        state.withLock { state in
            state.upstreamCalls += 1
            state.upstreamSeconds += seconds
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { state.upstreamBuckets[index] += 1 }
        }
    }

    /// The exposition: `text/plain; version=0.0.4`, with the HTTP server's `connections` and their `limit`
    /// when the server tells them.
    func exposition(connections: GatewayConnections? = nil, limit: Int = 0) -> HTTPResponse {
        let snapshot = snapshot()
        let reads = (memory: snapshot.sessionReadsFromMemory, store: snapshot.sessionReadsFromStore)
        var lines = [
            "# HELP hardtack_gateway_requests_total Requests answered, by route and status.",
            "# TYPE hardtack_gateway_requests_total counter",
        ]
        let counted = snapshot.requests.sorted {
            ($0.key.route, String($0.key.status)) < ($1.key.route, String($1.key.status))
        }
        for (key, count) in counted {
            lines.append("hardtack_gateway_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(count)")
        }
        lines += [
            "# HELP hardtack_gateway_refreshes_total Refreshes this instance presented to the issuer.",
            "# TYPE hardtack_gateway_refreshes_total counter",
            "hardtack_gateway_refreshes_total \(refreshes.withLock { $0 })",
            "# HELP hardtack_gateway_refresh_waits_total Calls that took a refresh another call or instance made.",
            "# TYPE hardtack_gateway_refresh_waits_total counter",
            "hardtack_gateway_refresh_waits_total \(refreshWaits.withLock { $0 })",
            "# HELP hardtack_gateway_session_reads_total Sessions read for a call: kept in memory while the store has not changed since, or read from it.",
            "# TYPE hardtack_gateway_session_reads_total counter",
            "hardtack_gateway_session_reads_total{source=\"memory\"} \(reads.memory)",
            "hardtack_gateway_session_reads_total{source=\"store\"} \(reads.store)",
            "# HELP hardtack_gateway_sessions_created_total Sessions signed in.",
            "# TYPE hardtack_gateway_sessions_created_total counter",
            "hardtack_gateway_sessions_created_total \(snapshot.sessionsCreated)",
            "# HELP hardtack_gateway_sessions_ended_total Sessions signed out, expired or ended by the issuer.",
            "# TYPE hardtack_gateway_sessions_ended_total counter",
            "hardtack_gateway_sessions_ended_total \(snapshot.sessionsEnded)",
            "# HELP hardtack_gateway_ended_sessions_revoked_total Refresh tokens of sessions ended without their cookie, revoked at the issuer.",
            "# TYPE hardtack_gateway_ended_sessions_revoked_total counter",
            "hardtack_gateway_ended_sessions_revoked_total \(snapshot.tokensRevoked)",
            "# HELP hardtack_gateway_upstream_seconds Time the upstreams took to answer.",
            "# TYPE hardtack_gateway_upstream_seconds histogram",
        ]
        for (index, bound) in Self.bounds.enumerated() {
            lines.append("hardtack_gateway_upstream_seconds_bucket{le=\"\(bound)\"} \(snapshot.upstreamBuckets[index])")
        }
        lines += [
            "hardtack_gateway_upstream_seconds_bucket{le=\"+Inf\"} \(snapshot.upstreamCalls)",
            "hardtack_gateway_upstream_seconds_sum \(snapshot.upstreamSeconds)",
            "hardtack_gateway_upstream_seconds_count \(snapshot.upstreamCalls)",
            "# HELP hardtack_gateway_streams_cut_total Answers whose body stream ended early (upstream lost or late, browser gone).",
            "# TYPE hardtack_gateway_streams_cut_total counter",
            "hardtack_gateway_streams_cut_total \(snapshot.streamsCut)",
        ]
        if let connections {
            lines += [
                "# HELP hardtack_gateway_connections Client connections open now (browsers', a proxy's, the scraper's).",
                "# TYPE hardtack_gateway_connections gauge",
                "hardtack_gateway_connections \(connections.open)",
                "# HELP hardtack_gateway_connection_limit The most client connections served at once, each event loop its share.",
                "# TYPE hardtack_gateway_connection_limit gauge",
                "hardtack_gateway_connection_limit \(limit)",
                "# HELP hardtack_gateway_connection_limit_reached_total Times an event loop's open connections reached its "
                    + "share of the limit; while a loop is full, connections given it wait in the kernel's queue.",
                "# TYPE hardtack_gateway_connection_limit_reached_total counter",
                "hardtack_gateway_connection_limit_reached_total \(connections.timesFull)",
            ]
        }
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4")]),
            body: Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
