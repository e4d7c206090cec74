import Data
import Domain
import Foundation

/// `/bff/backchannel`: OpenID Connect Back-Channel Logout 1.0, the issuer ending sessions server to server.
extension Gateway {
    /// How old (or how far ahead) a logout token's `iat` may be, in seconds.
    static let logoutTokenAge: TimeInterval = 300

    /// `POST /bff/backchannel` with a form field `logout_token`: the token's signature checked against the
    /// issuer's key set, its claims against the rules, its `jti` refused if seen before (the store keeps
    /// them, for every instance); then every session it names (by the issuer's `sid`, else by `sub`) ends.
    /// 200 on success; 400 when the token is invalid or replayed, with nothing ended.
    func backchannel(_ request: HTTPRequest) async -> HTTPResponse {
        let noStore = [("Cache-Control", "no-store")]
        guard let token = Self.formField("logout_token", in: request.body) else {
            return GatewayReply.error(400, "invalid_request", "no logout_token in the form", headers: noStore)
        }
        guard let keys = logoutTokens else {
            return GatewayReply.error(400, "invalid_request", "the issuer publishes no key set to check logout tokens with")
        }
        let logout: LogoutToken
        do throws(IDTokenError) {
            let payload = try await keys.verifiedPayload(of: token)
            logout = try LogoutToken(
                payload: payload, issuer: dependencies.metadata.issuer, clientID: configuration.clientID,
                now: dependencies.now(), maximumAge: Self.logoutTokenAge)
        } catch .keySetUnavailable(let why) {
            return GatewayReply.error(503, "key_set_unavailable", "the issuer's key set: \(why)", headers: noStore)
        } catch {
            return GatewayReply.error(400, "invalid_logout_token", error.description.replacingOccurrences(of: "ID token", with: "logout token"), headers: noStore)
        }
        guard let named = IssuerLogout(sessionID: logout.sessionID, subject: logout.subject) else {
            return GatewayReply.error(400, "invalid_logout_token", "the logout token names neither sid nor sub", headers: noStore)
        }
        let seen = LogoutTokenLedger(store: dependencies.store)
        do throws(AuthenticationError) {
            guard try await seen.remember(logout, until: logout.issuedAt.addingTimeInterval(2 * Self.logoutTokenAge)) else {
                return GatewayReply.error(400, "replayed_logout_token", "this logout token was received before", headers: noStore)
            }
            let ended = try await sessions.end(named)
            for _ in ended { metrics.sessionEnded() }
            // Copies may be kept by another instance (or an earlier run) even when this one keeps none.
            // After the answer: the issuer that sent the logout may wait for it before it answers anything
            // else. What fails there (the issuer unreachable, the gateway stopping) is left to the next sweep.
            // Counted while it runs, so that a stop waits for it: its count begins while this request's still holds.
            if !ended.isEmpty, beginWork() {
                Task {
                    defer { endWork() }
                    _ = await revokeEnded(Set(ended), after: .backChannelLogout)
                }
            }
        } catch {
            // Nothing is known to have ended: the issuer may send the token again.
            await seen.forget(logout)
            return Self.failure(error, headers: noStore)
        }
        return HTTPResponse(status: 200, headers: HTTPHeaders(noStore))
    }

    /// The value of `name` in an `application/x-www-form-urlencoded` body, when given once.
    static func formField(_ name: String, in body: Data) -> String? {
        guard body.count <= 64 * 1024 else { return nil }
        return queryParameter(name, in: "?" + String(decoding: body, as: UTF8.self))
    }
}
