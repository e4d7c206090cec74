/// Why an authentication use case failed. Each says what the app should do; none carries a token.
public enum AuthenticationError: Error, Sendable, Equatable {
    /// The server refused the credentials. Ask the user again.
    case invalidCredentials(String)
    /// No session is stored. Show the sign-in flow.
    case notSignedIn
    /// The server rejected the refresh token (expired, revoked or reused). The session was ended;
    /// sign in again.
    case sessionExpired
    /// Another process's refresh was interrupted after its request left (the process ended), and the
    /// server then rejected the refresh token that request may have spent. The session was ended;
    /// sign in again.
    case refreshInterrupted
    /// The server could not be reached or failed (network, timeout, 5xx, 429). The session is kept;
    /// try again later.
    case temporarilyUnavailable(String)
    /// The secure store is locked or damaged, so whether a session exists is unknown. Never treat
    /// this as signed out.
    case storeUnavailable(String)
    /// The secure store is damaged (an item or page failed its integrity check), so whether a session
    /// exists is unknown. Never treat this as signed out; the store's sound items can be copied out by a
    /// salvage into a new store.
    case storeDamaged(String)
    /// Writing to the secure store failed; nothing was half-written.
    case storageFailed(String)
    /// Too many refresh attempts in a short window: something keeps rejecting fresh tokens or failing.
    case refreshStorm(refreshes: Int, windowSeconds: Int)
    /// The server answered 401 even with a freshly refreshed token.
    case unauthorized
    /// The server's answer did not fit the contract (missing token, wrong token type, not JSON, …).
    /// Nothing was stored; an existing session is kept.
    case invalidResponse(String)
    /// A legacy preferences file does not hold usable tokens; it was left as it is.
    case invalidLegacyFile(String)
    /// The server refused the request for another reason (an unknown client id, say).
    case rejected(status: Int, reason: String)
    /// The configured server contract cannot do this.
    case unsupported(String)
}

extension AuthenticationError: CustomStringConvertible {
    /// One line saying what happened and what to do.
    public var description: String {
        switch self {
        case .invalidCredentials(let reason): "sign-in refused: \(reason). Check the username and password."
        case .notSignedIn: "not signed in: sign in first."
        case .sessionExpired: "the session has ended (the server rejected the refresh token). Sign in again."
        case .refreshInterrupted:
            "the session has ended: another process's refresh was interrupted after its request reached the server, which then rejected the refresh token. Sign in again."
        case .temporarilyUnavailable(let reason): "the server is unavailable: \(reason). The session is kept; try again later."
        case .storeUnavailable(let reason): "the secure store cannot be used: \(reason)"
        case .storeDamaged(let reason):
            "the secure store is damaged: \(reason) The user is not signed out."
        case .storageFailed(let reason): "the secure store could not be written: \(reason)"
        case .refreshStorm(let count, let window):
            "refused to refresh: \(count) refresh attempts in \(window) s already. Something keeps refusing new tokens or failing; check the server, then try again later."
        case .unauthorized:
            "the server refused even a freshly refreshed token (401). The session is kept; if this persists, sign in again."
        case .invalidResponse(let reason): "the server's answer did not fit the contract: \(reason)"
        case .invalidLegacyFile(let reason): "cannot migrate: \(reason). The file was left as it is."
        case .rejected(let status, let reason): "the server refused the request (HTTP \(status)): \(reason)"
        case .unsupported(let reason): reason
        }
    }
}
