/// The JWS signature algorithms (RFC 7518 §3.1) an ID token may be signed with. The allow-list is the
/// type itself: `none` and the HMAC algorithms (whose "key" would be public) have no case.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256, the signature as 64 bytes `r ‖ s`.
    case es256 = "ES256"
}
