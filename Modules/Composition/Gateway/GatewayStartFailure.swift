public import Data
public import Domain

/// Why a gateway could not start.
public enum GatewayStartFailure: Error, Sendable {
    /// The store could not be opened.
    case store(SecureStoreError)
    /// The issuer's discovery document could not be fetched or read.
    case discovery(AuthenticationError)
    /// The store could not keep the gateway's key.
    case auth(AuthenticationError)
    /// The address could not be listened on.
    case listen(String)
}
