import Data
import Domain
import Foundation

/// A sign-in in progress, between `/bff/login` and `/bff/callback`: the request's `state`, `nonce` and
/// PKCE verifier and where to go back, carried by the browser in a short-lived `__Host-` cookie sealed
/// under the gateway's key (so any instance that shares the store can finish it, and no one can read or
/// forge it).
struct LoginState {
    /// How long a sign-in may take, in seconds.
    static let lifetime: TimeInterval = 600

    let request: AuthorizationRequest
    let returnURL: String
    let startedAt: Date

    private struct Sealed: Codable {
        var state: String
        var nonce: String?
        var verifier: String
        var returnURL: String
        var redirectURI: String
        var startedAt: Double
    }

    /// The cookie's value: the state sealed under `key`.
    func cookieValue(key: SecretBytes) -> String? {
        let payload = Sealed(
            state: request.state.revealedString() ?? "", nonce: request.nonce?.revealedString(),
            verifier: request.verifier.revealedString() ?? "", returnURL: returnURL, redirectURI: request.redirectURI,
            startedAt: startedAt.timeIntervalSince1970)
        guard var json = try? JSONEncoder().encode(payload) else { return nil }
        defer { json.resetBytes(in: 0..<json.count) }
        return Base64URL.encode(GatewaySeal.seal(SecretBytes(json), key: key, context: Self.context, deterministic: false))
    }

    /// The state a cookie value holds, when it opens under `key` and was made within ``lifetime`` of `now`.
    init?(cookieValue: String, key: SecretBytes, now: Date) {
        guard cookieValue.utf8.count <= 4096, let sealed = Base64URL.decode(cookieValue),
            let opened = GatewaySeal.open(Array(sealed), key: key, context: Self.context)
        else { return nil }
        var json = opened.withUnsafeBytes { Data($0) }
        defer { json.resetBytes(in: 0..<json.count) }
        guard let payload = try? JSONDecoder().decode(Sealed.self, from: json), let returnURL = ReturnURL.validated(payload.returnURL)
        else { return nil }
        let startedAt = Date(timeIntervalSince1970: payload.startedAt)
        guard now.timeIntervalSince(startedAt) <= Self.lifetime, startedAt <= now.addingTimeInterval(60) else { return nil }
        request = AuthorizationRequest(
            restoring: URL(string: payload.redirectURI) ?? URL(fileURLWithPath: "/"), redirectURI: payload.redirectURI,
            verifier: SecretBytes(utf8: payload.verifier), state: SecretBytes(utf8: payload.state),
            nonce: payload.nonce.map { SecretBytes(utf8: $0) })
        self.returnURL = returnURL
        self.startedAt = startedAt
    }

    /// A state for `request`, started at `now`.
    init(request: AuthorizationRequest, returnURL: String, startedAt: Date) {
        self.request = request
        self.returnURL = returnURL
        self.startedAt = startedAt
    }

    private static let context = "hardtack gateway login state"
}
