import Data
import Domain
import Foundation

/// The periodic sweep of a running gateway's store.
extension Gateway {
    /// Sweeps the store until the task is cancelled or the gateway stops: first within half a minute of
    /// the start (so that a gateway restarted often still sweeps), then every
    /// ``GatewayConfiguration/sweepInterval`` with a tenth of it at random either way (so that instances
    /// started together do not sweep together), at once again after a batch that filled. A session is idle
    /// past the idle timeout plus the minute a recorded use may lag and the upstream timeout (a call
    /// admitted just in time records its use when its upstream answers). Logs one JSON line when a sweep
    /// removed anything or failed; ended sessions count in `/metrics`.
    ///
    /// A sweep under way when the stop comes is not cut: its store work ends, the send to the issuer under
    /// way is answered and recorded, no other send starts once it sees the stop (``beginStopping()``), and it counts in
    /// ``requestsInHand`` meanwhile, which a stop waits for. Cancelling this task ends only the wait for the
    /// next sweep.
    public func sweepPeriodically() async {
        let interval = max(1, configuration.sweepInterval)
        var pause = Double.random(in: min(5, interval)...min(30, interval))
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(pause))
            guard !Task.isCancelled, beginWork() else { return }
            // A task of its own, so that the cancellation of this one (a stop) does not reach the send under way.
            let filled = await Task { await sweepOnce() }.value
            endWork()
            pause = filled ? 0 : interval * Double.random(in: 0.9...1.1)
        }
    }

    /// One sweep: ended and idle sessions removed, then a batch of revocations. Whether either filled its
    /// batch (another sweep follows at once).
    private func sweepOnce() async -> Bool {
        var filled = false
        // Sessions kept in memory go too: an instance no call reaches would otherwise keep those ended
        // elsewhere until its next call.
        sessions.forgetKeptSessions()
        do throws(AuthenticationError) {
            let idle = configuration.idleTimeout.map { $0 + 60 + configuration.upstreamTimeout }
            let swept = try await GatewaySessionAdmin(store: dependencies.store).sweep(
                idleTimeout: idle, now: dependencies.now())
            for _ in 0..<(swept.expired + swept.idle) { metrics.sessionEnded() }
            if swept.expired + swept.idle + swept.orphanedRecords + swept.logoutTokens > 0 {
                dependencies.log(
                    "{\"event\":\"sweep\",\"expiredSessions\":\(swept.expired),\"idleSessions\":\(swept.idle),"
                        + "\"orphanedRecords\":\(swept.orphanedRecords),\"logoutTokens\":\(swept.logoutTokens)}")
            }
            filled = swept.filledBatch
        } catch {
            dependencies.log(
                "{\"event\":\"sweep\",\"error\":\(RequestLogLine.quoted(error.description)),"
                    + "\"next\":\"the next sweep tries again\"}")
        }
        // Copies whose sessions are gone (ended anywhere, by any path, or left by a revocation that did
        // not finish) are revoked here, at most a batch a sweep, whatever the sweep above did.
        return await revokeEndedBatch(500) || filled
    }

    /// A sweep's revocation: passes of ``revokeEnded(_:limit:after:)`` until `batch` tokens are sent, one
    /// pass ends on its own, or the gateway stops (see ``revokeInBatch(_:stopping:pass:)``). Whether the batch
    /// filled (another follows at once).
    func revokeEndedBatch(_ batch: Int) async -> Bool {
        await Self.revokeInBatch(batch, stopping: { isStopping }) { limit in
            await revokeEnded(limit: limit, after: .sweep)
        }
    }

    /// Runs `pass` (given how many it may still send) until `batch` tokens are sent, a pass ends on its own,
    /// the store fails (`nil`), or `stopping` says so before a pass. A pass that yielded to a back-channel
    /// logout's is followed by another, which queues behind that one and reads the copies afresh, so that
    /// none it revoked is sent again. Whether the batch filled.
    static func revokeInBatch(
        _ batch: Int, stopping: () -> Bool = { false }, pass: (Int) async -> RevokeEndedSessions.Outcome?
    ) async -> Bool {
        var sent = 0
        while sent < batch, !stopping(), let done = await pass(batch - sent) {
            sent += done.revoked + done.unsupported + done.refused
            if !done.yielded || done.stopped { break }
        }
        return sent >= batch
    }
}
