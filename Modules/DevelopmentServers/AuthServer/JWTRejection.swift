/// Why a JWT failed verification; the server answers every one of them with `invalid_token`.
enum JWTRejection: Error, Equatable {
    /// Not three base64url parts, or a header or claims set that is not the expected JSON.
    case malformed
    /// A header whose `alg` is not `HS256` (including `none`), or that names critical extensions.
    case unsupportedAlgorithm
    /// The signature does not match.
    case badSignature
}
