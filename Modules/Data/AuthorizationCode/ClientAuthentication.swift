public import Domain
import Foundation

/// How the client proves itself at the issuer's token and revocation endpoints (RFC 6749 §2.3.1). A
/// public client (no secret, as RFC 8252 asks of native apps) names itself with `client_id`; a client
/// given a secret sends it with HTTP Basic, which every server must accept and which OpenID Connect
/// Discovery takes as the default, or in the form when the issuer lists only `client_secret_post`.
public struct ClientAuthentication: Sendable {
    /// The two ways of sending a secret this client knows.
    public enum Method: String, Sendable, Equatable {
        /// `Authorization: Basic` with the form-encoded id and secret.
        case basic = "client_secret_basic"
        /// `client_id` and `client_secret` in the form body.
        case post = "client_secret_post"
    }

    /// The client id.
    public let clientID: String
    /// The secret, if the client has one.
    let secret: SecretBytes?
    /// How the secret is sent; `nil` without one.
    public let method: Method?

    /// The authentication of `clientID` with `secret`, sent the way `method` says, or, when no method was
    /// remembered, the way the issuer's `supported` list (`token_endpoint_auth_methods_supported`) allows.
    public init(clientID: String, secret: SecretBytes?, method: Method? = nil, supported: [String]? = nil) {
        self.clientID = clientID
        self.secret = secret
        guard secret != nil else {
            self.method = nil
            return
        }
        if let method {
            self.method = method
        } else if let supported, !supported.contains(Method.basic.rawValue), supported.contains(Method.post.rawValue) {
            self.method = .post
        } else {
            self.method = .basic
        }
    }

    /// The form fields that name (and, for `client_secret_post`, authenticate) the client.
    var fields: [(String, String)] {
        guard let secret, method == .post else { return method == .basic ? [] : [("client_id", clientID)] }
        return [("client_id", clientID), ("client_secret", secret.revealedString() ?? "")]
    }

    /// The headers that authenticate the client: `Authorization: Basic` for `client_secret_basic`.
    var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        if let secret, method == .basic {
            let pair = FormBody.escape(clientID) + ":" + FormBody.escape(secret.revealedString() ?? "")
            headers["Authorization"] = "Basic " + Data(pair.utf8).base64EncodedString()
        }
        return headers
    }
}
