import Data
public import Foundation

/// The device authorization grant on the embedded server (RFC 8628): `POST /oauth/device_authorization`
/// issues a device code and a user code; `/oauth/device` is the page where the user types the code and
/// signs in (or refuses); the token endpoint answers `authorization_pending`, `slow_down` (polled
/// sooner than the interval), `access_denied`, `expired_token`, or the tokens once.
extension EmbeddedAuthServer {
    /// `POST /oauth/device_authorization`.
    func deviceAuthorizationEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        guard FormURLEncoded.isFormContentType(request.headers["Content-Type"]),
            let form = FormURLEncoded.parse(request.body), let clientID = form["client_id"]
        else { return AuthReply.error(400, "invalid_request", "client_id is required") }
        guard options.clientIDs.contains(clientID) else { return AuthReply.error(401, "invalid_client", "the client is not known") }
        let deviceCode = AuthCrypto.randomToken()
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        let letters = AuthCrypto.digest(AuthCrypto.randomToken()).prefix(8).map { alphabet[Int($0) % alphabet.count] }
        let userCode = String(letters[0..<4]) + "-" + String(letters[4..<8])
        let lifetime: TimeInterval = 600
        let scopes = (form["scope"] ?? "").split(separator: " ")
        deviceCodes[deviceCode] = PendingDeviceCode(
            clientID: clientID, userCode: userCode, expiresAt: clock.now.addingTimeInterval(lifetime),
            openID: scopes.contains("openid"))
        let verification = issuer(of: request) + "/oauth/device"
        return AuthReply.json(
            200,
            [
                "device_code": deviceCode, "user_code": userCode, "verification_uri": verification,
                "verification_uri_complete": verification + "?user_code=" + userCode, "expires_in": Int(lifetime),
                "interval": Int(devicePollingInterval),
            ], headers: HTTPHeaders([("Cache-Control", "no-store")]))
    }

    /// Sets the polling interval the device endpoint asks for (5 s by default; tests use 1).
    public func setDevicePollingInterval(_ seconds: TimeInterval) {
        devicePollingInterval = max(1, seconds)
    }

    /// Records the user's decision on `userCode`, as the verification page does: approval as `username`
    /// (whose password was checked there), or refusal. Returns whether the code was pending.
    public func decideDeviceCode(_ userCode: String, approvedBy username: String?) -> Bool {
        guard let entry = deviceCodes.first(where: { $0.value.userCode == userCode.uppercased() && $0.value.decision == nil }),
            entry.value.expiresAt > clock.now
        else { return false }
        if let username, let user = options.users.first(where: { $0.username == username }) {
            deviceCodes[entry.key]?.decision = .approved(subject: user.username, name: user.displayName)
        } else {
            deviceCodes[entry.key]?.decision = .denied
        }
        return true
    }

    /// `GET` or `POST /oauth/device`: the verification page.
    func deviceVerificationPage(_ request: HTTPRequest) -> HTTPResponse {
        if request.method == "POST", let form = FormURLEncoded.parse(request.body), let userCode = form["user_code"] {
            let approve = form["decision"] != "deny"
            if approve, authenticate(username: form["username"] ?? "", password: form["password"] ?? "") == nil {
                return devicePage("The username or password is wrong.")
            }
            let decided = decideDeviceCode(userCode, approvedBy: approve ? form["username"] : nil)
            return devicePage(decided ? (approve ? "Approved. You may return to your device." : "Refused.") : "Unknown or expired code.")
        }
        return devicePage(nil)
    }

    private func devicePage(_ message: String?) -> HTTPResponse {
        let body = """
            <!doctype html><meta charset="utf-8"><title>Device sign-in</title><h1>Sign in a device</h1>
            \(message.map { "<p role=\"alert\">\($0)</p>" } ?? "")
            <form method="post" action="/oauth/device">
            <label>Code <input name="user_code"></label>
            <label>Username <input name="username"></label>
            <label>Password <input name="password" type="password"></label>
            <button name="decision" value="approve">Approve</button> <button name="decision" value="deny">Deny</button>
            </form>

            """
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")]),
            body: Data(body.utf8))
    }

    /// `grant_type=urn:ietf:params:oauth:grant-type:device_code`.
    /// The tokens come with an ID token (no nonce: the device grant has none) when `openid` was asked.
    func exchangeDeviceCode(_ form: [String: String], clientID: String, issuer: String) -> HTTPResponse {
        guard let code = form["device_code"], let pending = deviceCodes[code], pending.clientID == clientID else {
            return AuthReply.error(400, "invalid_grant", "the device code is unknown")
        }
        let now = clock.now
        guard pending.expiresAt > now else {
            deviceCodes[code] = nil
            return AuthReply.error(400, "expired_token", "the device code has expired")
        }
        switch pending.decision {
        case .denied?:
            deviceCodes[code] = nil
            return AuthReply.error(400, "access_denied", "the user refused")
        case .approved(let subject, let name)?:
            deviceCodes[code] = nil
            counters.signIns += 1
            let tokens = startFamily(subject: subject, name: name, clientID: clientID)
            guard pending.openID else { return tokenReply(tokens) }
            return idTokenReply(tokens, subject: subject, name: name, clientID: clientID, issuer: issuer, nonce: nil)
        case nil:
            deviceCodes[code]?.lastPoll = now
            if let last = pending.lastPoll, now.timeIntervalSince(last) < devicePollingInterval - 0.5 {
                return AuthReply.error(400, "slow_down", "poll less often")
            }
            return AuthReply.error(400, "authorization_pending", "the user has not decided yet")
        }
    }
}
