/// One key of a JWKS as sent (RFC 7517 §4, RFC 7518 §6).
struct JSONWebKeyDTO: Decodable {
    let kty: String
    let kid: String?
    let alg: String?
    let use: String?
    let n: String?
    let e: String?
    let crv: String?
    let x: String?
    let y: String?
}
