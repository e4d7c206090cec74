/// A failure of the libcrypto wrapper. Messages name the operation and sizes, never key, signature or
/// message bytes, and never OpenSSL's own error strings (which could quote input).
public enum LibCryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An input has a size the operation does not accept; checked before any C call.
    case invalidSize(String)
    /// A key could not be built or used (not on the curve, a wrong type).
    case invalidKey(String)
    /// A libcrypto call failed; the name of the call.
    case callFailed(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidSize(let what): "wrong size: \(what)"
        case .invalidKey(let what): "unusable key: \(what)"
        case .callFailed(let call): "libcrypto's \(call) failed"
        }
    }
}
