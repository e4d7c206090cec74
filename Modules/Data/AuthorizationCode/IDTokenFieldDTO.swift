/// The `id_token` of a token response (OpenID Connect Core §3.1.3.3), read beside the OAuth fields.
struct IDTokenFieldDTO: Decodable {
    let idToken: String?

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token"
    }
}
