/// The JSON body of a header-style `POST /auth/signin/{provider}`.
struct IdentitySignInRequestDTO: Encodable {
    let identityToken: String
}
