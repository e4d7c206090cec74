/// Why an ID token was refused. Messages name the rule broken, never the token or a claim's value
/// (claims may identify the user; the nonce is a secret).
public enum IDTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a compact JWS with a JSON header and claims of the expected types.
    case malformed(String)
    /// The header's `alg` is not on the allow-list (`none` and HMAC never are).
    case algorithmNotAllowed(String)
    /// No key of the issuer's set fits the header, even after fetching the set again.
    case unknownKey
    /// The signature does not verify.
    case badSignature
    /// A claim breaks a rule: `iss`, `aud`, `azp`, `exp`, `iat` or `nonce`.
    case claimRejected(String)
    /// The key set could not be fetched or read.
    case keySetUnavailable(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .malformed(let why): "the ID token is malformed: \(why)"
        case .algorithmNotAllowed(let alg): "the ID token's algorithm \(alg) is not allowed (RS256 and ES256 are)"
        case .unknownKey: "no key of the issuer's key set fits the ID token"
        case .badSignature: "the ID token's signature does not verify"
        case .claimRejected(let why): "the ID token was refused: \(why)"
        case .keySetUnavailable(let why): "the issuer's key set is unavailable: \(why)"
        }
    }
}
