public import Domain
public import Foundation

/// An authentication gateway whose answers a test scripts, counting every call. Issues tokens
/// `access-N` and `refresh-N` with the lifetime it is given.
public final class ScriptedAuthenticationGateway: AuthenticationGateway {
    /// What the next refresh does.
    public enum RefreshBehaviour: Sendable {
        /// New access and refresh tokens.
        case rotate
        /// A new access token only; the refresh token stays.
        case accessOnly
        /// The refresh token is rejected (`invalid_grant`).
        case reject
        /// The server cannot be reached.
        case fail
    }

    private struct State {
        var refreshBehaviour: RefreshBehaviour = .rotate
        var revokeFails = false
        var revokeError: AuthenticationError?
        var revokedTokens: [String] = []
        var signInCalls = 0
        var refreshCalls = 0
        var revokeCalls = 0
        var serial = 0
        var presentedRefreshTokens: [String] = []
        var duringRefresh: (@Sendable () -> Void)?
        /// Revocations held at the server until released (`nil`: none are held).
        var heldRevokes: [CheckedContinuation<Void, Never>]?
        /// Those who wait until so many revocations were asked for.
        var revokeWatchers: [(count: Int, seen: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())
    private let clock: TestClock
    private let accessLifetime: TimeInterval?
    private let refreshDelay: Duration
    private let revokeDelay: Duration

    /// Creates a gateway issuing access tokens that live `accessLifetime` seconds (nil: unknown), and
    /// taking `refreshDelay` to answer a refresh (so concurrent callers overlap) and `revokeDelay` to answer
    /// a revocation.
    public init(
        clock: TestClock, accessLifetime: TimeInterval? = 300, refreshDelay: Duration = .milliseconds(20),
        revokeDelay: Duration = .zero
    ) {
        self.clock = clock
        self.accessLifetime = accessLifetime
        self.refreshDelay = refreshDelay
        self.revokeDelay = revokeDelay
    }

    /// Sets what refreshes do from now on.
    public func setRefreshBehaviour(_ behaviour: RefreshBehaviour) { state.withLock { $0.refreshBehaviour = behaviour } }
    /// Makes revocation fail.
    public func setRevokeFails(_ fails: Bool) { state.withLock { $0.revokeFails = fails } }
    /// Runs `action` while the next refreshes are at the server (after the token was presented,
    /// before the answer), to stage what other processes do meanwhile.
    public func setDuringRefresh(_ action: (@Sendable () -> Void)?) { state.withLock { $0.duringRefresh = action } }
    /// Makes revocation fail with `error` (`nil`: succeed), whatever ``setRevokeFails(_:)`` says.
    public func setRevokeError(_ error: AuthenticationError?) { state.withLock { $0.revokeError = error } }
    /// Holds every revocation from now on at the server, until ``releaseRevokes()``.
    public func holdRevokes() { state.withLock { $0.heldRevokes = $0.heldRevokes ?? [] } }
    /// Lets the held revocations answer, and no longer holds any.
    public func releaseRevokes() {
        let held = state.withLock { state in
            defer { state.heldRevokes = nil }
            return state.heldRevokes ?? []
        }
        for revocation in held { revocation.resume() }
    }
    /// Returns once `count` revocations were asked for (at once if they were).
    public func untilRevokeCalls(_ count: Int) async {
        await withCheckedContinuation { (seen: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.revokeCalls >= count { return true }
                state.revokeWatchers.append((count, seen))
                return false
            }
            if now { seen.resume() }
        }
    }
    /// Every refresh token revoked successfully, in order (test-only visibility).
    public var revokedTokens: [String] { state.withLock { $0.revokedTokens } }
    /// Sign-ins answered.
    public var signInCalls: Int { state.withLock { $0.signInCalls } }
    /// Refreshes asked for.
    public var refreshCalls: Int { state.withLock { $0.refreshCalls } }
    /// Revocations asked for.
    public var revokeCalls: Int { state.withLock { $0.revokeCalls } }
    /// Every refresh token presented, in order (test-only visibility).
    public var presentedRefreshTokens: [String] { state.withLock { $0.presentedRefreshTokens } }

    /// A session as this gateway would issue it, numbered `serial`.
    public func makeSession(serial: Int, method: SignInMethod = .password) -> Session {
        let now = clock.date
        return Session(
            accessToken: try! AccessToken(
                value: SecretBytes(utf8: "access-\(serial)"), issuedAt: now,
                expiresAt: accessLifetime.map { now.addingTimeInterval($0) }),
            refreshToken: try! RefreshToken(value: SecretBytes(utf8: "refresh-\(serial)")),
            user: User(id: "u1", name: "Alice"), method: method)
    }

    public func signIn(_ credentials: Credentials) async throws(AuthenticationError) -> Session {
        let serial = state.withLock { state in
            state.signInCalls += 1
            state.serial += 1
            return state.serial
        }
        if case .password(_, let password) = credentials, password.revealedString() != "right" {
            throw .invalidCredentials("invalid_grant")
        }
        return makeSession(serial: serial, method: credentials.method)
    }

    public func refresh(_ session: Session) async throws(AuthenticationError) -> TokenRefresh {
        let (behaviour, serial, during) = state.withLock { state in
            state.refreshCalls += 1
            state.serial += 1
            state.presentedRefreshTokens.append(session.refreshToken.value.revealedString() ?? "")
            return (state.refreshBehaviour, state.serial, state.duringRefresh)
        }
        during?()
        try? await Task.sleep(for: refreshDelay)
        switch behaviour {
        case .reject: throw .sessionExpired
        case .fail: throw .temporarilyUnavailable("connection refused")
        case .rotate, .accessOnly:
            let fresh = makeSession(serial: serial)
            return TokenRefresh(
                accessToken: fresh.accessToken, refreshToken: behaviour == .rotate ? fresh.refreshToken : nil)
        }
    }

    public func revoke(_ refreshToken: RefreshToken) async throws(AuthenticationError) {
        let (fails, error, seen, held) = state.withLock { state in
            state.revokeCalls += 1
            let calls = state.revokeCalls
            let seen = state.revokeWatchers.filter { $0.count <= calls }.map(\.seen)
            state.revokeWatchers.removeAll { $0.count <= calls }
            return (state.revokeFails, state.revokeError, seen, state.heldRevokes != nil)
        }
        for watcher in seen { watcher.resume() }
        // Held as of the call. A release and a new hold between here and the queueing below would hold
        // it under the new one, which no test does.
        if held {
            await withCheckedContinuation { (answer: CheckedContinuation<Void, Never>) in
                // Released meanwhile: answer at once.
                let still = state.withLock { state in
                    state.heldRevokes?.append(answer)
                    return state.heldRevokes != nil
                }
                if !still { answer.resume() }
            }
        }
        if revokeDelay > .zero { try? await Task.sleep(for: revokeDelay) }
        if let error { throw error }
        if fails { throw .temporarilyUnavailable("connection refused") }
        state.withLock { $0.revokedTokens.append(refreshToken.value.revealedString() ?? "") }
    }
}
