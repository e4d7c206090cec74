/// The JSON body of an OAuth error (RFC 6749 §5.2), also used by the header-style contract.
struct OAuthErrorDTO: Decodable {
    let error: String
    let errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}
