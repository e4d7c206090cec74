/// An issuer's key set (`jwks_uri`, RFC 7517 §5): only the public fields ID token validation reads.
struct JSONWebKeySetDTO: Decodable {
    let keys: [JSONWebKeyDTO]
}
