public import Domain

/// `GET /api/me`, the authorized call every contract offers: who the access token belongs to.
public struct ProfileAPI: Sendable {
    private let http: any HTTPClient
    private let path: String

    /// Creates the API over `http`, at `path` (`/api/me`, or an issuer's userinfo endpoint).
    public init(http: any HTTPClient, path: String = "/api/me") {
        self.http = http
        self.path = path
    }

    /// The current user, or `.unauthorized` on a 401.
    /// - Throws: ``AuthenticationError/temporarilyUnavailable(_:)`` for transport failures and 5xx,
    ///   ``AuthenticationError/invalidResponse(_:)`` for a reply out of contract.
    public func me(_ token: AccessToken) async throws(AuthenticationError) -> AuthorizedOutcome<User> {
        var headers = HTTPHeaders()
        headers["Authorization"] = BearerAuthorization.headerValue(token)
        headers["Accept"] = "application/json"
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(method: "GET", path: path, headers: headers))
        } catch .responseTooLarge(let limit) {
            throw .invalidResponse("the reply body is larger than \(limit) bytes")
        } catch {
            throw .temporarilyUnavailable(error.description)
        }
        switch response.status {
        case 200: return .success(try ResponseBody.decode(MeResponseDTO.self, from: response).user())
        case 401: return .unauthorized
        case 500...599, 429, 408: throw .temporarilyUnavailable("the server answered HTTP \(response.status)")
        default: throw .rejected(status: response.status, reason: "unexpected status from /api/me")
        }
    }
}
