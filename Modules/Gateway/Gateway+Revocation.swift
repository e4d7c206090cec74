public import Data
public import Domain

/// Revoking, at the issuer, the sessions that ended without their cookie: one pass of
/// ``RevokeEndedSessions``, counted in `/metrics` and logged, whether a back-channel logout or a sweep runs it.
extension Gateway {
    /// What a revocation pass follows, as its log line says (`"after"`).
    enum RevocationCause: String {
        /// A back-channel logout ended the sessions it revokes.
        case backChannelLogout = "backchannel_logout"
        /// A sweep looks for any copy whose session is gone.
        case sweep

        /// Whether a pass that follows this stops early for a pass that waits: a sweep's does, for a
        /// back-channel logout's, which never does.
        var yieldsToWaitingPasses: Bool { self == .sweep }
    }

    /// Revokes the kept copies of sessions that are gone (only those of `sessionIDs` when given, at most
    /// `limit`; a sweep's pass stops early when a back-channel logout's waits, see
    /// ``GatewaySessions/revokeEnded(_:limit:yielding:stopping:)``); logs one JSON line when it did something or failed
    /// (never a token), saying what it followed. `nil` when the store failed (the next sweep tries again).
    func revokeEnded(_ sessionIDs: Set<String>? = nil, limit: Int = .max, after cause: RevocationCause) async
        -> RevokeEndedSessions.Outcome?
    {
        do throws(AuthenticationError) {
            let outcome = try await sessions.revokeEnded(
                sessionIDs, limit: limit, yielding: cause.yieldsToWaitingPasses, stopping: { isStopping })
            metrics.tokensRevoked(outcome.revoked)
            if outcome != RevokeEndedSessions.Outcome() {
                dependencies.log(Self.revocationLine(outcome, after: cause))
            }
            return outcome
        } catch {
            dependencies.log(Self.revocationFailureLine(error.description, after: cause))
            return nil
        }
    }

    /// The log line of a revocation pass: what it followed, its counts, whether it stopped early for another
    /// pass (`yielded`) or for the gateway's stop (`stopping`), and the last failure's reason (never a token).
    static func revocationLine(
        _ outcome: RevokeEndedSessions.Outcome, after cause: RevocationCause
    ) -> String {
        var line = "{\"event\":\"revocation\",\"after\":\"\(cause.rawValue)\",\"revoked\":\(outcome.revoked),"
            + "\"expired\":\(outcome.expired),\"unsupported\":\(outcome.unsupported),\"refused\":\(outcome.refused),"
            + "\"deferred\":\(outcome.deferred)"
        if outcome.stopped { line += ",\"stopping\":true" } else if outcome.yielded { line += ",\"yielded\":true" }
        if let why = outcome.lastFailure { line += ",\"lastFailure\":\(RequestLogLine.quoted(why))" }
        return line + "}"
    }

    /// The log line of a revocation pass the store failed: what it followed, and why (never a token).
    static func revocationFailureLine(_ reason: String, after cause: RevocationCause) -> String {
        "{\"event\":\"revocation\",\"after\":\"\(cause.rawValue)\",\"error\":\(RequestLogLine.quoted(reason)),"
            + "\"next\":\"the next sweep tries again\"}"
    }

    /// Refuses a configuration that is to revoke sessions ended without their cookie when the issuer's
    /// discovery names no revocation endpoint: checked before any store is opened, and again by ``init(_:dependencies:)``.
    /// - Throws: ``AuthenticationError/unsupported(_:)`` with ``noRevocationEndpoint``.
    public static func checkRevocation(_ configuration: GatewayConfiguration, _ metadata: ProviderMetadata)
        throws(AuthenticationError)
    {
        if configuration.revokeEndedSessions, metadata.revocationEndpoint == nil {
            throw .unsupported(noRevocationEndpoint)
        }
    }
}
