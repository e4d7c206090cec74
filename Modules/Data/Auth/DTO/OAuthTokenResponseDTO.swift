/// The JSON body of a successful `POST /oauth/token` (RFC 6749 §5.1).
struct OAuthTokenResponseDTO: Decodable {
    let accessToken: String?
    let tokenType: String?
    let expiresIn: Double?
    let refreshToken: String?
    let scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case scope
    }
}
