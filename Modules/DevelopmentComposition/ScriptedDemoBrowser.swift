import Composition
import Data
import DevelopmentServers
import Foundation

/// The demo's stand-in for a user at a browser: it submits the embedded server's login form for an
/// authorization URL (through the in-process transport), then follows the server's redirect to the
/// app's loopback listener over real HTTP, as a browser would.
struct ScriptedDemoBrowser {
    /// The way to the embedded server.
    let transport: EmbeddedAuthServerTransport

    /// Approves the sign-in at `url` as `user`; whether the redirect reached the listener.
    func approve(_ url: URL, as user: (username: String, password: String)) async -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return false }
        var fields = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        fields += [("username", user.username), ("password", user.password), ("decision", "approve")]
        var form = URLComponents()
        form.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        let body = (form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        let post = HTTPRequest(
            method: "POST", path: components.path,
            headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")]), body: Data(body.utf8))
        guard let answer = try? await transport.send(post), answer.status == 302,
            let location = answer.headers["Location"], let redirect = URL(string: location),
            let host = redirect.host, let port = redirect.port, let origin = URL(string: "http://\(host):\(port)")
        else { return false }
        let target = redirect.path + (redirect.query.map { "?" + $0 } ?? "")
        let landing = try? await AppContainer.remoteHTTPClient(origin).send(HTTPRequest(method: "GET", path: target))
        return landing?.status == 200
    }
}
