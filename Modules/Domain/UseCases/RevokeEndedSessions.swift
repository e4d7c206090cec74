public import Foundation

/// Revokes at the issuer (RFC 7009) the refresh tokens of sessions that ended without their own keys (an
/// issuer's logout, an operator's revoke, an idle sweep), from the copies kept for it
/// (``RevocationCopies``). A copy is sent only once its session is gone from the catalog, and removed once
/// the issuer revoked it, says it revokes no refresh tokens, or refuses that one token (a 4xx other than
/// about this client: asking again would get the same answer); a copy whose token has expired is removed
/// unsent. A failure that is not the token's (the issuer unreachable or failing, or refusing this client)
/// ends the pass and keeps every copy left for the next, so that nothing is dropped unrevoked and the
/// issuer is not hammered; each pass starts at a random copy.
/// A copy is never stored before its session (a gateway writes both in one transaction), so a copy read
/// before the catalog never finds a live session's copy without its session.
public struct RevokeEndedSessions: Sendable {
    /// What one pass did.
    public struct Outcome: Sendable, Equatable {
        /// Tokens the issuer revoked (or already knew as invalid, which RFC 7009 answers the same way).
        public var revoked = 0
        /// Copies whose token had expired, removed without asking the issuer.
        public var expired = 0
        /// Copies removed unrevoked because the issuer revokes no refresh tokens (RFC 7009's
        /// `unsupported_token_type`, or no revocation endpoint): asking again would get the same answer.
        public var unsupported = 0
        /// Copies removed unrevoked because the issuer refused that token alone (a 4xx about the request,
        /// not this client).
        public var refused = 0
        /// Copies left for the next pass: the issuer could not be reached, failed, or refused this client,
        /// the pass's limit was reached, the pass yielded to another, or its caller stops.
        public var deferred = 0
        /// Why the last refusal or deferral happened, for the log (never a token).
        public var lastFailure: String?
        /// Whether the pass stopped sending early to let another pass that waited run first; the copies
        /// it left are counted in `deferred`.
        public var yielded = false
        /// Whether the pass stopped sending because its caller stops (``callAsFunction(_:now:limit:yieldingWhen:stoppingWhen:)``'s
        /// `stopping`); the copies it left are counted in `deferred`.
        public var stopped = false

        /// Creates an empty outcome.
        public init() {}
    }

    private let gateway: any AuthenticationGateway
    private let catalog: any SessionCatalog
    private let copies: any RevocationCopies

    /// Creates the use case.
    public init(gateway: any AuthenticationGateway, catalog: any SessionCatalog, copies: any RevocationCopies) {
        self.gateway = gateway
        self.catalog = catalog
        self.copies = copies
    }

    /// Revokes the copies whose sessions are gone: only those under `keys` when given (the sessions a
    /// logout just ended), at most `limit` sent to the issuer. Before each send but the first, a pass
    /// for which `othersWait` says so stops sending and defers the rest (``Outcome/yielded``), so that a
    /// pass that waits (a logout's) need not wait for a long one (a sweep's), which still makes headway.
    /// Before every send, the first too, a pass for which `stopping` says so sends nothing more and defers
    /// the rest (``Outcome/stopped``): its caller is shutting down and must not be left under a send. (Copies
    /// whose tokens expired are still removed: a store write each, which needs no issuer.)
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)``, ``AuthenticationError/storeDamaged(_:)`` or
    ///   ``AuthenticationError/storageFailed(_:)`` when the store cannot be read or written; what was
    ///   revoked before stays removed, the rest waits for the next pass.
    public func callAsFunction(
        _ keys: Set<String>? = nil, now: Date, limit: Int = .max, yieldingWhen othersWait: () -> Bool = { false },
        stoppingWhen stopping: () -> Bool = { false }
    ) async throws(AuthenticationError) -> Outcome {
        // The copies first, then the sessions: a copy read here was stored no earlier than its session, so a
        // session that still exists is in the catalog read next.
        let kept = try await copies.copies().filter { keys?.contains($0.key) ?? true }
        if kept.isEmpty { return Outcome() }
        let live = try await catalog.keys()
        var outcome = Outcome()
        var sent = 0
        var goOn = true
        let ended = kept.filter { !live.contains($0.key) }.sorted { $0.key < $1.key }
        let start = ended.isEmpty ? 0 : Int.random(in: 0..<ended.count)
        for (key, token) in ended[start...] + ended[..<start] {
            if token.isExpired(at: now) {
                if try await copies.remove(key, ifStill: token) { outcome.expired += 1 }
                continue
            }
            if goOn, sent < limit, stopping() {
                goOn = false
                outcome.stopped = true
            }
            if goOn, sent > 0, sent < limit, othersWait() {
                goOn = false
                outcome.yielded = true
            }
            guard goOn, sent < limit else {
                outcome.deferred += 1
                continue
            }
            sent += 1
            do throws(AuthenticationError) {
                try await gateway.revoke(token)
                outcome.revoked += 1
            } catch .unsupported(let reason) {
                outcome.unsupported += 1
                outcome.lastFailure = reason
            } catch .rejected(let status, let reason) where status == 400 && reason.hasPrefix("unsupported_token_type") {
                outcome.unsupported += 1
                outcome.lastFailure = "the issuer revokes no refresh tokens: \(reason)"
            } catch .rejected(let status, let reason) where !Self.refusesClient(status: status, reason: reason) {
                // That token's own refusal (RFC 7009 answers 200 even for an invalid token, so this is rare).
                outcome.refused += 1
                outcome.lastFailure = "the issuer refused to revoke a token (HTTP \(status)): \(reason)"
            } catch .temporarilyUnavailable(let reason) {
                goOn = false
                outcome.deferred += 1
                outcome.lastFailure = "the issuer could not be reached: \(reason)"
                continue
            } catch {
                // A refusal of this client (a wrong secret, say), or an answer that fits no contract: not the
                // token's doing, so the copy waits until it is fixed.
                goOn = false
                outcome.deferred += 1
                outcome.lastFailure = error.description
                continue
            }
            _ = try await copies.remove(key, ifStill: token)
        }
        return outcome
    }

    /// Whether a refusal is about the client rather than the token (RFC 6749 §5.2's client errors, or a
    /// status that is not the request's fault).
    public static func refusesClient(status: Int, reason: String) -> Bool {
        status == 401 || status == 403 || !(400..<500).contains(status) || reason.hasPrefix("invalid_client")
            || reason.hasPrefix("unauthorized_client")
    }
}
