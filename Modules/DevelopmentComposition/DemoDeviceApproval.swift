import Data
import DevelopmentServers
import Foundation

/// The demo's "other device": once the app has shown the user code, the first wait approves it on the
/// embedded server's verification page, as a user on a phone would.
actor DemoDeviceApproval {
    private let transport: EmbeddedAuthServerTransport
    private var userCode: String?
    private var approved = false

    /// An approver talking to the server through `transport`.
    init(transport: EmbeddedAuthServerTransport) { self.transport = transport }

    /// The user code the app showed.
    func setUserCode(_ code: String) { userCode = code }

    /// Approves the code as `user`, the first time only.
    func approveOnce(as user: (username: String, password: String)) async {
        guard !approved, let userCode else { return }
        approved = true
        var form = URLComponents()
        form.queryItems = [
            URLQueryItem(name: "user_code", value: userCode), URLQueryItem(name: "username", value: user.username),
            URLQueryItem(name: "password", value: user.password), URLQueryItem(name: "decision", value: "approve"),
        ]
        _ = try? await transport.send(
            HTTPRequest(
                method: "POST", path: "/oauth/device",
                headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")]),
                body: Data((form.percentEncodedQuery ?? "").utf8)))
    }
}
