import Data
import Domain
import Foundation

/// `/bff/login` and `/bff/callback`: the authorization code flow with PKCE as a confidential client, the
/// sign-in in progress kept in a sealed cookie, and the session stored through ``SignIn``.
extension Gateway {
    /// `GET /bff/login?returnUrl=/local/path`: a 302 to the issuer's authorization endpoint.
    func login(_ request: HTTPRequest) async -> HTTPResponse {
        guard let returnURL = ReturnURL.validated(Self.queryParameter("returnUrl", in: request.path)) else {
            return GatewayReply.error(400, "invalid_return_url", "returnUrl must be a path of this site, such as /account")
        }
        let authorization: AuthorizationRequest
        do throws(AuthenticationError) {
            authorization = try AuthorizationRequest(
                metadata: dependencies.metadata, clientID: configuration.clientID, redirectURI: configuration.redirectURI,
                scope: configuration.scope, crypto: dependencies.signInCrypto)
        } catch {
            return GatewayReply.error(500, "sign_in_unavailable", error.description)
        }
        let state = LoginState(request: authorization, returnURL: returnURL, startedAt: dependencies.now())
        guard let cookie = state.cookieValue(key: loginKey) else {
            return GatewayReply.error(500, "sign_in_unavailable", "the sign-in state could not be sealed")
        }
        return GatewayReply.redirect(
            authorization.url.absoluteString,
            headers: [GatewayReply.setCookie(loginCookieName, cookie, sameSite: "Lax", maxAge: Int(LoginState.lifetime))])
    }

    /// `GET /bff/callback`: checks `state` and `iss`, exchanges the code, verifies the ID token, stores the
    /// session, sets the cookie and goes back to where the sign-in began.
    func callback(_ request: HTTPRequest) async -> HTTPResponse {
        let clear = GatewayReply.clearCookie(loginCookieName)
        guard let value = CookieHeader.value(loginCookieName, in: request.headers),
            let state = LoginState(cookieValue: value, key: loginKey, now: dependencies.now())
        else {
            return GatewayReply.error(
                400, "no_sign_in", "no sign-in in progress here (it expired, or this callback was not asked for)",
                headers: [clear])
        }
        let query = String(request.path.split(separator: "?", maxSplits: 1).dropFirst().first ?? "")
        let issued: Session
        do throws(AuthenticationError) {
            let code = try AuthorizationRedirect(query: query).code(
                for: state.request, issuer: dependencies.metadata.issuer,
                issuerSendsIss: dependencies.metadata.sendsIssuerInAuthorizationResponse)
            issued = try await openID.signIn(.grant(state.request.grant(code: code)))
        } catch {
            return Self.signInFailure(error, headers: [clear])
        }
        let cookie = SessionCookie.fresh()
        do throws(AuthenticationError) {
            _ = try await sessions.signIn(issued: issued, cookie: cookie)
        } catch {
            return Self.failure(error, headers: [clear])
        }
        metrics.sessionCreated()
        if configuration.idleTimeout != nil { await activity.record(cookie, after: SessionActivity.Use(at: nil)) }
        await endReplacedSession(request)
        return GatewayReply.redirect(
            state.returnURL,
            headers: [clear, GatewayReply.setCookie(configuration.cookieName, cookie.value(tagKey: cookieTagKey), sameSite: Self.sameSite)])
    }

    /// Ends the session of the cookie a new sign-in replaces in this browser (its refresh token revoked,
    /// its items deleted), when the browser sent one and its key opens a session: the browser will not
    /// present it again, so it would otherwise stay in the store, and live at the issuer, until it expired.
    /// Best effort: the new session is stored whatever happens here.
    private func endReplacedSession(_ request: HTTPRequest) async {
        guard let old = sessionCookie(request), (try? await sessions.repository(for: old).load()) ?? nil != nil else {
            return
        }
        activity.forget(old)
        if (try? await sessions.signOut(old))?.deletedLocalSession == true { metrics.sessionEnded() }
    }

    /// The answer to a failed sign-in: the issuer unreachable is 503, a refusal or a bad redirect 400.
    static func signInFailure(_ error: AuthenticationError, headers: [(String, String)]) -> HTTPResponse {
        switch error {
        case .temporarilyUnavailable(let reason):
            GatewayReply.error(503, "issuer_unavailable", "the issuer could not be reached: \(reason)", headers: headers)
        case .invalidCredentials:
            GatewayReply.error(400, "sign_in_refused", "the sign-in was refused", headers: headers)
        default:
            GatewayReply.error(400, "sign_in_failed", error.description, headers: headers)
        }
    }

    /// The answer to a failure of the store or the issuer while a session is used.
    static func failure(_ error: AuthenticationError, headers: [(String, String)] = []) -> HTTPResponse {
        switch error {
        case .storeUnavailable, .storageFailed, .storeDamaged:
            GatewayReply.error(503, "store_unavailable", "the session store cannot be used now; try again", headers: headers)
        case .temporarilyUnavailable:
            GatewayReply.error(503, "issuer_unavailable", "the issuer could not be reached; the session is kept", headers: headers)
        case .refreshStorm:
            GatewayReply.error(503, "refresh_storm", "too many refreshes of this session; try again later", headers: headers)
        default:
            GatewayReply.error(502, "issuer_failed", error.description, headers: headers)
        }
    }
}
