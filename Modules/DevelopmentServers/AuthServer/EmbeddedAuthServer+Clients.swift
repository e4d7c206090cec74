import Data
import Foundation

/// Which client a token or revocation request comes from (RFC 6749 §2.3.1): a public client names
/// itself with `client_id`; a confidential one (a gateway) proves itself with its secret, in HTTP Basic
/// (`client_secret_basic`) or in the form (`client_secret_post`).
extension EmbeddedAuthServer {
    /// The authenticated client of `request`, or why there is none (`invalid_client`, 401).
    func authenticatedClient(_ request: HTTPRequest, _ form: [String: String]) -> Result<String, Refusal> {
        var clientID = form["client_id"]
        var secret = form["client_secret"]
        if let header = request.headers["Authorization"], header.lowercased().hasPrefix("basic ") {
            guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":"),
                let id = FormURLEncoded.decodeComponent(pair[..<colon]),
                let given = FormURLEncoded.decodeComponent(pair[pair.index(after: colon)...])
            else { return .failure(Refusal("the Basic credentials are malformed")) }
            if let named = clientID, named != id { return .failure(Refusal("two client ids were given")) }
            clientID = id
            secret = given
        }
        guard let clientID, options.clientIDs.contains(clientID) else { return .failure(Refusal("the client is not known")) }
        if let expected = options.clientSecrets[clientID] {
            guard let secret, AuthCrypto.equalInConstantTime(secret, expected) else {
                return .failure(Refusal("the client's secret is missing or wrong"))
            }
        }
        return .success(clientID)
    }
}
