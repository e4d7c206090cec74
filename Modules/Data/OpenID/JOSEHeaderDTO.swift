/// The protected header of a compact JWS (RFC 7515 §4.1): the fields ID token validation reads.
struct JOSEHeaderDTO: Decodable {
    let alg: String
    let kid: String?
    let typ: String?
    /// Extensions the signer says must be understood; this client understands none.
    let crit: [String]?
}
