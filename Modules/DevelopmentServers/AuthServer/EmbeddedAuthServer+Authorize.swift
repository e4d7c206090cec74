import Data
import Foundation

/// The authorization endpoint (RFC 6749 §4.1.1): `GET` shows a login form carrying the request's
/// parameters; `POST` checks the password (or a refusal) and redirects to the client's loopback
/// redirect URI with a single-use code, `state` and `iss` (RFC 9207). PKCE S256 is required; the
/// redirect URI must be `http` (RFC 8252 §7.3) or `https` on a loopback host (see ``isLoopbackRedirect(_:)``).
extension EmbeddedAuthServer {
    func authorizationEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        let fields: [String: String]?
        switch request.method {
        case "GET":
            let target = request.path
            let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
            fields = FormURLEncoded.parse(Data(query.utf8))
        case "POST":
            fields = FormURLEncoded.isFormContentType(request.headers["Content-Type"]) ? FormURLEncoded.parse(request.body) : nil
        default:
            return AuthReply.methodNotAllowed(allow: "GET, POST")
        }
        guard let fields else { return page(400, "The request is malformed or repeats a parameter.") }
        // Until the client and redirect URI are known good, errors are shown here, never redirected.
        guard let clientID = fields["client_id"], options.clientIDs.contains(clientID) else {
            return page(400, "Unknown client.")
        }
        guard let redirectURI = fields["redirect_uri"], Self.isLoopbackRedirect(redirectURI) else {
            return page(400, "The redirect URI must be an http or https URI on a loopback host.")
        }
        let issuer = issuer(of: request)
        let state = fields["state"]
        func redirect(_ parameters: [(String, String)]) -> HTTPResponse {
            var all = parameters
            if let state { all.append(("state", state)) }
            all.append(("iss", issuer))
            let query = all.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
            let location = redirectURI + (redirectURI.contains("?") ? "&" : "?") + query
            return HTTPResponse(
                status: 302, headers: HTTPHeaders([("Location", location), ("Cache-Control", "no-store")]))
        }
        guard fields["response_type"] == "code" else { return redirect([("error", "unsupported_response_type")]) }
        guard fields["code_challenge_method"] == "S256", let challenge = fields["code_challenge"], challenge.utf8.count == 43
        else {
            return redirect([("error", "invalid_request"), ("error_description", "PKCE with S256 is required")])
        }
        if request.method == "GET" { return loginForm(fields, message: nil) }
        if fields["decision"] == "deny" { return redirect([("error", "access_denied")]) }
        guard let user = authenticate(username: fields["username"] ?? "", password: fields["password"] ?? "") else {
            return loginForm(fields, message: "The username or password is wrong.")
        }
        let code = AuthCrypto.randomToken()
        authorizationCodes[code] = PendingAuthorizationCode(
            clientID: clientID, redirectURI: redirectURI, codeChallenge: challenge, nonce: fields["nonce"],
            subject: user.username, name: user.displayName,
            expiresAt: clock.now.addingTimeInterval(Self.authorizationCodeLifetime))
        return redirect([("code", code)])
    }

    /// The login form, carrying the request's parameters as hidden fields (never the password).
    private func loginForm(_ fields: [String: String], message: String?) -> HTTPResponse {
        let carried = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
            "code_challenge_method", "nonce"]
        let hidden = carried.compactMap { name in
            fields[name].map { #"<input type="hidden" name="\#(name)" value="\#(Self.html($0))">"# }
        }.joined(separator: "\n")
        let notice = message.map { "<p role=\"alert\">\(Self.html($0))</p>" } ?? ""
        let body = """
            <!doctype html><meta charset="utf-8"><title>Sign in</title>
            <h1>Sign in to the embedded auth server</h1>\(notice)
            <form method="post" action="/oauth/authorize">
            \(hidden)
            <label>Username <input name="username" autocomplete="username"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button name="decision" value="approve">Sign in</button>
            <button name="decision" value="deny">Deny</button>
            </form>

            """
        return HTTPResponse(
            status: 200,
            headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")]),
            body: Data(body.utf8))
    }

    private func page(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]),
            body: Data("<!doctype html><meta charset=\"utf-8\"><p>\(Self.html(message))</p>\n".utf8))
    }

    /// Whether `uri` may receive codes here: http or https (a gateway tried behind a TLS proxy on this
    /// machine) on a loopback host, with no fragment.
    static func isLoopbackRedirect(_ uri: String) -> Bool {
        guard let parts = URLComponents(string: uri), parts.scheme == "http" || parts.scheme == "https",
            parts.fragment == nil, let host = parts.host, ["127.0.0.1", "localhost", "[::1]", "::1"].contains(host)
        else { return false }
        return true
    }

    private static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    private static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
