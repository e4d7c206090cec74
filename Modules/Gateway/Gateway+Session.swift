import Data
import Domain
import Foundation

/// `/bff/user`, `/bff/logout` and `/healthz`.
extension Gateway {
    /// `GET /bff/user` with `X-CSRF: 1`: who is signed in (`sub`, `name`, and `sid`, which `/bff/logout`
    /// asks back); 401 without a session.
    func user(_ request: HTTPRequest) async -> HTTPResponse {
        guard Self.hasAntiForgeryHeader(request) else { return Self.missingAntiForgeryHeader }
        guard let cookie = sessionCookie(request) else { return Self.notSignedIn(clearing: nil) }
        let (use, ended) = await admit(cookie)
        if let ended { return ended }
        let session: Session?
        do throws(AuthenticationError) {
            session = try await sessions.repository(for: cookie).load()
        } catch {
            return Self.failure(error)
        }
        guard let session else { return Self.notSignedIn(clearing: configuration.cookieName) }
        if let use { await activity.record(cookie, after: use) }
        var claims: [String: Any] = ["sid": cookie.sessionID]
        if let user = session.user {
            claims["sub"] = user.id
            if !user.name.isEmpty { claims["name"] = user.name }
        }
        return GatewayReply.json(claims)
    }

    /// `GET /bff/logout?sid=SID`: with the right `sid`, the refresh token revoked (RFC 7009), the session
    /// deleted, the cookie cleared, and the browser sent to the issuer's end-session endpoint when it has
    /// one (else to `/`). A wrong or missing `sid` is 400 and the session stays: a link on another site
    /// cannot sign anyone out.
    func logout(_ request: HTTPRequest) async -> HTTPResponse {
        let clear = GatewayReply.clearCookie(configuration.cookieName)
        guard let cookie = sessionCookie(request) else { return GatewayReply.redirect("/", headers: [clear]) }
        guard let sid = Self.queryParameter("sid", in: request.path),
            GatewaySeal.equal(Array(sid.utf8), Array(cookie.sessionID.utf8))
        else {
            return GatewayReply.error(400, "invalid_sid", "sign out with /bff/logout?sid= and the sid /bff/user gives")
        }
        let repository = sessions.repository(for: cookie)
        let idToken: SecretBytes?
        do throws(AuthenticationError) {
            // A cookie that opens no session (none, or one forged from a real session's id) has nothing to end.
            guard let session = try await repository.load() else { return GatewayReply.redirect("/", headers: [clear]) }
            idToken = session.identity?.idToken
            let result = try await sessions.signOut(cookie)
            if result.deletedLocalSession { metrics.sessionEnded() }
        } catch {
            return Self.failure(error)
        }
        return GatewayReply.redirect(endSessionLocation(idToken: idToken), headers: [clear])
    }

    /// The longest end-session address sent with `id_token_hint`. An ID token can be many kilobytes (some
    /// issuers list a user's groups in it), and the redirect's head must fit the room the HTTP server keeps
    /// for an answer's head (4 KiB and 256 bytes) beside a large request; without the hint, the issuer still
    /// knows the client (`client_id`) and its registered `post_logout_redirect_uri`, and may ask the user to
    /// confirm (OpenID Connect RP-Initiated Logout 1.0 §2).
    static let endSessionLocationBytes = 3 * 1024

    /// Where a signed-out browser goes: the issuer's end-session endpoint with `id_token_hint` (when that
    /// keeps the address within ``endSessionLocationBytes``), `client_id` and `post_logout_redirect_uri`
    /// (this site's `/`), or `/` when the issuer has none.
    private func endSessionLocation(idToken: SecretBytes?) -> String {
        guard let endpoint = dependencies.metadata.endSessionEndpoint else { return "/" }
        let fields = [("client_id", configuration.clientID), ("post_logout_redirect_uri", configuration.origin + "/")]
        let separator = endpoint.absolute.absoluteString.contains("?") ? "&" : "?"
        /// The address with `fields`.
        func location(_ fields: [(String, String)]) -> String {
            endpoint.absolute.absoluteString + separator + String(decoding: FormBody.encode(fields), as: UTF8.self)
        }
        if let hint = idToken?.revealedString() {
            let hinted = location([("id_token_hint", hint)] + fields)
            if hinted.utf8.count <= Self.endSessionLocationBytes { return hinted }
        }
        return location(fields)
    }

    /// `GET /healthz`: 200 when the store answers, 503 when not.
    func health() async -> HTTPResponse {
        guard await dependencies.storeAnswers() else {
            return GatewayReply.error(503, "store_unavailable", "the session store does not answer")
        }
        return GatewayReply.json(["status": "ok"])
    }

    /// 401: no session (and the cookie `clearing`, when given, deleted).
    static func notSignedIn(clearing cookie: String?) -> HTTPResponse {
        GatewayReply.error(
            401, "not_signed_in", "no session: sign in at /bff/login",
            headers: cookie.map { [GatewayReply.clearCookie($0)] } ?? [])
    }
}
