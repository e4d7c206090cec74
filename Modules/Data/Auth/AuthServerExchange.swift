import Domain
import Foundation

/// The pieces both gateways share: sending with transport failures mapped, classifying replies, and
/// revoking (RFC 7009), which both contracts do the same way.
struct AuthServerExchange: Sendable {
    let http: any HTTPClient
    let clientID: String

    /// Sends `request`; a transport failure is temporary.
    func send(_ request: HTTPRequest) async throws(AuthenticationError) -> HTTPResponse {
        do {
            return try await http.send(request)
        } catch {
            throw .temporarilyUnavailable(error.description)
        }
    }

    /// A form-encoded POST.
    func postForm(_ path: String, _ fields: [(String, String)]) async throws(AuthenticationError) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        headers["Accept"] = "application/json"
        return try await send(HTTPRequest(method: "POST", path: path, headers: headers, body: FormBody.encode(fields)))
    }

    /// A JSON POST.
    func postJSON(_ path: String, _ body: some Encodable, headers extra: HTTPHeaders = HTTPHeaders())
        async throws(AuthenticationError) -> HTTPResponse
    {
        var headers = extra
        headers["Content-Type"] = "application/json"
        headers["Accept"] = "application/json"
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw .invalidResponse("the request could not be encoded")
        }
        return try await send(HTTPRequest(method: "POST", path: path, headers: headers, body: data))
    }

    /// The error for a failed sign-in reply.
    func signInFailure(_ response: HTTPResponse) -> AuthenticationError {
        if response.status >= 500 { return .temporarilyUnavailable("the server answered HTTP \(response.status)") }
        let oauth = ResponseBody.oauthError(in: response)
        if response.status == 400 || response.status == 401 || response.status == 403 {
            if oauth == nil || oauth?.code == "invalid_grant" {
                return .invalidCredentials(oauth?.description ?? "the server refused the credentials")
            }
        }
        return .rejected(status: response.status, reason: oauth.map { describe($0) } ?? "unexpected status")
    }

    /// The error for a failed refresh reply: a rejected grant ends the session, a server failure does not.
    func refreshFailure(_ response: HTTPResponse) -> AuthenticationError {
        if response.status >= 500 { return .temporarilyUnavailable("the server answered HTTP \(response.status)") }
        let oauth = ResponseBody.oauthError(in: response)
        if oauth?.code == "invalid_grant" || (response.status == 401 && oauth == nil) { return .sessionExpired }
        return .rejected(status: response.status, reason: oauth.map { describe($0) } ?? "unexpected status")
    }

    /// Revokes a refresh token with `POST /oauth/revoke` (RFC 7009).
    func revoke(_ refreshToken: RefreshToken) async throws(AuthenticationError) {
        let response = try await postForm(
            "/oauth/revoke",
            [
                ("token", refreshToken.value.revealedString() ?? ""), ("token_type_hint", "refresh_token"),
                ("client_id", clientID),
            ])
        guard response.status == 200 else {
            if response.status >= 500 {
                throw .temporarilyUnavailable("the server answered HTTP \(response.status)")
            }
            throw .rejected(
                status: response.status,
                reason: ResponseBody.oauthError(in: response).map { describe($0) } ?? "revocation refused")
        }
    }

    private func describe(_ error: (code: String, description: String?)) -> String {
        // Server text is shown bounded and as plain words: it is not trusted.
        let text = error.description.map { ": " + String($0.prefix(120)) } ?? ""
        return String(error.code.prefix(40)) + text
    }
}
