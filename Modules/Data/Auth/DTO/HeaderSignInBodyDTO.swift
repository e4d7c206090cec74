/// The JSON body of a header-style sign-in or refresh: the user, and perhaps the refresh token.
struct HeaderSignInBodyDTO: Decodable {
    let userId: IdentifierDTO?
    let nickname: String?
    let refreshToken: String?
}
