/// The JSON body of a header-style `POST /auth/signin`.
struct PasswordSignInRequestDTO: Encodable {
    let username: String
    let password: String
}
