public import Domain
import Data
public import Foundation

/// A gateway session's repository: the store's, with the session's tokens (access, refresh, ID token)
/// sealed under a key derived from the cookie's secret before they reach it, and opened on the way
/// back. The store encrypts them again under its own key; without the user's cookie, neither the
/// database nor the server's key opens them.
///
/// With revocation copies, the refresh token is also kept apart, under the store's key only, in the same
/// transaction as each session write that stores a new one (sign-in, a refresh that rotated it), so that
/// the session can be revoked without its cookie (``RevokeEndedSessions``).
///
/// A stored session that this cookie's key does not open (a forged or altered cookie that happens to
/// name a real session) reads as no session: the caller is not signed in.
public struct SealedSessionRepository: SessionRepository {
    private let base: SecureStoreSessionRepository
    private let key: SecretBytes
    private let sessionID: String
    private let copies: StoreRevocationCopies?
    private let reads: SessionReadCache?
    private let received: ContinuousClock.Instant?

    /// Wraps `base`, the store's repository for `cookie`'s session, keeping revocation copies in `copies`
    /// and the session as read in `reads` (while the store does not change); `received`, when the
    /// repository serves one request, is when that request was read whole.
    init(
        _ base: SecureStoreSessionRepository, cookie: SessionCookie, copies: StoreRevocationCopies? = nil,
        reads: SessionReadCache? = nil, received: ContinuousClock.Instant? = nil
    ) {
        self.base = base
        self.copies = copies
        self.reads = reads
        self.received = received
        sessionID = cookie.sessionID
        key = cookie.tokensKey
    }

    /// What each sealed token is bound to, with its field's name: the session (made when a token is sealed
    /// or opened, not for a session found in memory).
    private var context: String { "hardtack gateway session " + sessionID }

    /// The stored session, its tokens opened with this cookie's key; `nil` when none is, or the key fails.
    /// From memory when it was read with this key since the store last changed (``SessionReadCache``).
    public func load() async throws(AuthenticationError) -> Session? {
        guard let reads else { return try await read() }
        return try await reads.session(sessionID, key: key, received: received, load: read)
    }

    /// The session read from the store and opened.
    private func read() async throws(AuthenticationError) -> Session? {
        guard let stored = try await base.load() else { return nil }
        return opened(stored)
    }

    /// Stores `session` with its tokens sealed under this cookie's key.
    public func replace(with session: Session) async throws(AuthenticationError) {
        try await base.replace(with: try sealed(session), alongside: copy(of: session.refreshToken))
    }

    /// Deletes the stored session when this cookie's key opens it (or there is none, and only leftovers of
    /// one go); whether there was one. A cookie forged from a session's id (which is not secret: the app
    /// shows it, and logout asks for it) and another secret deletes nothing.
    public func delete() async throws(AuthenticationError) -> Bool {
        if let stored = try await base.load(), opened(stored) == nil { return false }
        return try await base.delete()
    }

    /// Claims the refresh of `stale` (sealed to compare) for `owner`; a newer session found is returned opened.
    public func claimRefresh(replacing stale: Session, owner: String, lease: TimeInterval, now: Date)
        async throws(AuthenticationError) -> RefreshClaim
    {
        switch try await base.claimRefresh(replacing: try sealed(stale), owner: owner, lease: lease, now: now) {
        case .superseded(let current):
            guard let opened = opened(current) else { return .signedOut }
            return .superseded(opened)
        case let other:
            return other
        }
    }

    /// Records that `owner`'s refresh request of `stale` (sealed to compare) has left.
    public func markRefreshSent(replacing stale: Session, owner: String) async throws(AuthenticationError) -> Bool {
        try await base.markRefreshSent(replacing: try sealed(stale), owner: owner)
    }

    /// Replaces `stale` with `refreshed`, both sealed, if `owner` still holds the claim.
    public func completeRefresh(replacing stale: Session, with refreshed: Session, owner: String)
        async throws(AuthenticationError) -> Bool
    {
        let rotated = !refreshed.refreshToken.isSameToken(as: stale.refreshToken)
        return try await base.completeRefresh(
            replacing: try sealed(stale), with: try sealed(refreshed), owner: owner,
            alongside: rotated ? copy(of: refreshed.refreshToken) : nil)
    }

    /// The revocation copy of `token`, when copies are kept.
    private func copy(of token: RefreshToken) -> CompanionItem? {
        copies?.companion(token, for: sessionID)
    }

    /// Gives up `owner`'s claim without storing anything.
    public func releaseRefresh(owner: String) async throws(AuthenticationError) {
        try await base.releaseRefresh(owner: owner)
    }

    /// Deletes the session if its refresh token is still `refreshToken` (sealed to compare).
    public func deleteIfCurrent(_ refreshToken: RefreshToken) async throws(AuthenticationError) -> Bool {
        try await base.deleteIfCurrent(try sealed(refreshToken))
    }

    // MARK: Sealing

    /// `session` with its tokens sealed, and no client secret (the gateway's own comes from its
    /// configuration; no session keeps a copy).
    private func sealed(_ session: Session) throws(AuthenticationError) -> Session {
        var copy = session
        copy.accessToken = try AccessToken(
            value: seal(session.accessToken.value, "access"), issuedAt: session.accessToken.issuedAt,
            expiresAt: session.accessToken.expiresAt)
        copy.refreshToken = try sealed(session.refreshToken)
        copy.identity = session.identity.map {
            SignInIdentity(idToken: seal($0.idToken, "id"), sessionID: $0.sessionID)
        }
        copy.issuer = session.issuer.map {
            SessionIssuer(
                issuer: $0.issuer, clientID: $0.clientID, tokenEndpoint: $0.tokenEndpoint,
                revocationEndpoint: $0.revocationEndpoint, userinfoEndpoint: $0.userinfoEndpoint)
        }
        return copy
    }

    private func sealed(_ token: RefreshToken) throws(AuthenticationError) -> RefreshToken {
        try RefreshToken(value: seal(token.value, "refresh"), expiresAt: token.expiresAt)
    }

    /// `stored` with its tokens opened, or `nil` when this key does not open them.
    private func opened(_ stored: Session) -> Session? {
        var copy = stored
        guard let access = open(stored.accessToken.value, "access"), let refresh = open(stored.refreshToken.value, "refresh"),
            let accessToken = try? AccessToken(
                value: access, issuedAt: stored.accessToken.issuedAt, expiresAt: stored.accessToken.expiresAt),
            let refreshToken = try? RefreshToken(value: refresh, expiresAt: stored.refreshToken.expiresAt)
        else { return nil }
        copy.accessToken = accessToken
        copy.refreshToken = refreshToken
        if let identity = stored.identity {
            guard let idToken = open(identity.idToken, "id") else { return nil }
            copy.identity = SignInIdentity(idToken: idToken, sessionID: identity.sessionID)
        }
        return copy
    }

    /// A token sealed as text a token may be: `s1.` and base64url.
    private func seal(_ value: SecretBytes, _ field: String) -> SecretBytes {
        let sealed = GatewaySeal.seal(value, key: key, context: context + " " + field, deterministic: true)
        return SecretBytes(utf8: "s1." + Base64URL.encode(sealed))
    }

    private func open(_ value: SecretBytes, _ field: String) -> SecretBytes? {
        guard let text = value.revealedString(), text.hasPrefix("s1."), let bytes = Base64URL.decode(text.dropFirst(3))
        else { return nil }
        return GatewaySeal.open(Array(bytes), key: key, context: context + " " + field)
    }
}
