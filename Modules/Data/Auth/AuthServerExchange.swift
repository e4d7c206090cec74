import Domain
import Foundation

/// The pieces both gateways share: sending with transport failures mapped, classifying replies, and
/// revoking (RFC 7009), which both contracts do the same way.
struct AuthServerExchange: Sendable {
    let http: any HTTPClient
    let clientID: String

    /// Sends `request`; a transport failure is temporary, an oversized reply is out of contract.
    func send(_ request: HTTPRequest) async throws(AuthenticationError) -> HTTPResponse {
        do {
            return try await http.send(request)
        } catch .responseTooLarge(let limit) {
            throw .invalidResponse("the reply body is larger than \(limit) bytes")
        } catch {
            throw .temporarilyUnavailable(error.description)
        }
    }

    /// A form-encoded POST, with `extra` headers (client authentication).
    func postForm(_ path: String, _ fields: [(String, String)], headers extra: HTTPHeaders = HTTPHeaders())
        async throws(AuthenticationError) -> HTTPResponse
    {
        var headers = extra
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
        if let temporary = temporaryFailure(response) { return temporary }
        let oauth = ResponseBody.oauthError(in: response)
        if let oauth, oauth.code == "invalid_grant" {
            return .invalidCredentials(oauth.description.map { ServerText.printable($0) } ?? "invalid_grant")
        }
        if oauth == nil && response.status == 401 {
            return .invalidCredentials("the server refused the credentials (HTTP 401)")
        }
        return .rejected(status: response.status, reason: oauth.map(describe) ?? "unexpected reply")
    }

    /// The error for a failed refresh reply: a rejected grant ends the session, a server failure does
    /// not. A bare 401 ends it only where the contract says so (the header style answers a dead
    /// refresh token that way); under OAuth it could be a proxy's page, so it is not trusted.
    func refreshFailure(_ response: HTTPResponse, bareUnauthorizedEndsSession: Bool) -> AuthenticationError {
        if let temporary = temporaryFailure(response) { return temporary }
        let oauth = ResponseBody.oauthError(in: response)
        if oauth?.code == "invalid_grant" { return .sessionExpired }
        if oauth == nil && response.status == 401 && bareUnauthorizedEndsSession { return .sessionExpired }
        return .rejected(status: response.status, reason: oauth.map(describe) ?? "unexpected reply")
    }

    /// A 5xx, 429 (too many requests) or 408 (request timeout): the server may answer later.
    private func temporaryFailure(_ response: HTTPResponse) -> AuthenticationError? {
        switch response.status {
        case 500...599, 429, 408: .temporarilyUnavailable("the server answered HTTP \(response.status)")
        default: nil
        }
    }

    /// Revokes a refresh token with `POST /oauth/revoke`, or at `path` (RFC 7009), as `client` (by
    /// default the public client of this exchange's id).
    func revoke(_ refreshToken: RefreshToken, path: String = "/oauth/revoke", client: ClientAuthentication? = nil)
        async throws(AuthenticationError)
    {
        let client = client ?? ClientAuthentication(clientID: clientID, secret: nil)
        let response = try await postForm(
            path,
            [("token", refreshToken.value.revealedString() ?? ""), ("token_type_hint", "refresh_token")]
                + client.fields,
            headers: client.headers)
        guard response.status == 200 else {
            if let temporary = temporaryFailure(response) { throw temporary }
            throw .rejected(
                status: response.status,
                reason: ResponseBody.oauthError(in: response).map { describe($0) } ?? "revocation refused")
        }
    }

    private func describe(_ error: (code: String, description: String?)) -> String {
        // Server text is not trusted: bounded, and without control characters.
        ServerText.printable(error.code, limit: 40) + (error.description.map { ": " + ServerText.printable($0) } ?? "")
    }
}
