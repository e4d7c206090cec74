public import Data
public import Domain

/// Why a browser or device sign-in failed: at the server or in the browser part, or at the store.
public enum SignInFailure: Error, Sendable {
    /// The issuer, the browser part or the exchange failed; nothing was stored.
    case auth(AuthenticationError)
    /// The store could not be opened; nothing was stored.
    case store(SecureStoreError)
    /// The flow was cancelled (Ctrl-C) before anything was stored.
    case cancelled
}
