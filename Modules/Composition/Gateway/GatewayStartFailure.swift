public import Data
public import Domain

/// Why a gateway could not start.
public enum GatewayStartFailure: Error, Sendable {
    /// The store could not be opened.
    case store(SecureStoreError)
    /// The issuer could not be discovered, or the store could not keep the gateway's key.
    case auth(AuthenticationError)
    /// The address could not be listened on.
    case listen(String)
}
