/// Why a signature could not be checked at all. The messages name sizes and kinds, never key or
/// signature bytes.
public enum JWSVerificationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key cannot be used with the algorithm (wrong type, a size out of range, not on the curve).
    case unusableKey(String)
    /// The signature has the wrong size for the key.
    case malformedSignature(String)
    /// The cryptographic library failed for another reason.
    case libraryFailure(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .unusableKey(let why): "the signing key cannot be used: \(why)"
        case .malformedSignature(let why): "the signature is malformed: \(why)"
        case .libraryFailure(let why): "the cryptographic library failed: \(why)"
        }
    }
}
