import Data
import Domain
import Foundation

/// The periodic sweep of a running gateway's store.
extension Gateway {
    /// Sweeps the store until the task is cancelled: first within half a minute of the start (so that a
    /// gateway restarted often still sweeps), then every ``GatewayConfiguration/sweepInterval`` with a tenth
    /// of it at random either way (so that instances started together do not sweep together), at once again
    /// after a batch that filled. A session is idle past the idle timeout plus the minute a recorded use may
    /// lag and the upstream timeout (a call admitted just in time records its use when its upstream answers).
    /// Logs one JSON line when a sweep removed anything or failed; ended sessions count in `/metrics`.
    public func sweepPeriodically() async {
        let admin = GatewaySessionAdmin(store: dependencies.store)
        let interval = max(1, configuration.sweepInterval)
        var pause = Double.random(in: min(5, interval)...min(30, interval))
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(pause))
            if Task.isCancelled { return }
            pause = interval * Double.random(in: 0.9...1.1)
            // Sessions kept in memory go too: an instance no call reaches would otherwise keep those ended
            // elsewhere until its next call.
            sessions.forgetKeptSessions()
            do throws(AuthenticationError) {
                let idle = configuration.idleTimeout.map { $0 + 60 + configuration.upstreamTimeout }
                let swept = try await admin.sweep(idleTimeout: idle, now: dependencies.now())
                for _ in 0..<(swept.expired + swept.idle) { metrics.sessionEnded() }
                if swept.expired + swept.idle + swept.orphanedRecords + swept.logoutTokens > 0 {
                    dependencies.log(
                        "{\"event\":\"sweep\",\"expiredSessions\":\(swept.expired),\"idleSessions\":\(swept.idle),"
                            + "\"orphanedRecords\":\(swept.orphanedRecords),\"logoutTokens\":\(swept.logoutTokens)}")
                }
                if swept.filledBatch { pause = 0 }
            } catch {
                dependencies.log(
                    "{\"event\":\"sweep\",\"error\":\(RequestLogLine.quoted(error.description)),"
                        + "\"next\":\"the next sweep tries again\"}")
            }
            // Copies whose sessions are gone (ended anywhere, by any path, or left by a revocation that did
            // not finish) are revoked here, at most a batch a sweep, whatever the sweep above did.
            if await revokeEndedBatch(500) { pause = 0 }
        }
    }

    /// A sweep's revocation: passes of ``revokeEnded(_:limit:after:)`` until `batch` tokens are sent or one
    /// pass ends on its own (see ``revokeInBatch(_:pass:)``). Whether the batch filled (another follows at once).
    func revokeEndedBatch(_ batch: Int) async -> Bool {
        await Self.revokeInBatch(batch) { limit in await revokeEnded(limit: limit, after: .sweep) }
    }

    /// Runs `pass` (given how many it may still send) until `batch` tokens are sent, a pass ends on its own,
    /// or the store fails (`nil`). A pass that yielded to a back-channel logout's is followed by another,
    /// which queues behind that one and reads the copies afresh, so that none it revoked is sent again.
    /// Whether the batch filled.
    static func revokeInBatch(_ batch: Int, pass: (Int) async -> RevokeEndedSessions.Outcome?) async -> Bool {
        var sent = 0
        while sent < batch, let done = await pass(batch - sent) {
            sent += done.revoked + done.unsupported + done.refused
            if !done.yielded { break }
        }
        return sent >= batch
    }
}
