/// The claims of an ID token (OpenID Connect Core §2) this client checks or uses.
struct IDTokenClaimsDTO: Decodable {
    let iss: String
    let sub: IdentifierDTO
    let aud: AudienceDTO
    let exp: Double
    let iat: Double
    let nonce: String?
    let azp: String?
    let name: String?
    let preferredUsername: String?
    let sid: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, azp, name, sid
        case preferredUsername = "preferred_username"
    }
}
