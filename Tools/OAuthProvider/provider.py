"""Hardtack's own OAuth 2.0 / OpenID Connect provider for the interop tests, built on Authlib's grant
implementations (Flask integration). Run by Tools/oauth-server in .build-venv/authlib; see
docs/testing.md. In memory, loopback only (127.0.0.1), threaded.

Clients:
  `hardtack-cli`: public (`none`), redirect http://127.0.0.1/callback or http://[::1]/callback on any
      port (RFC 8252), scopes `openid profile`, authorization_code (PKCE S256 required), refresh_token
      (rotated), device_code (RFC 8628); no ID token on refresh.
  `hardtack-gateway`: confidential, secret `gateway-secret` by `client_secret_basic` (or
      `client_secret_post`) at /token and /revoke; redirect http://localhost:PORT/bff/callback or
      http://127.0.0.1:PORT/bff/callback (any PORT), post-logout redirect http://localhost:PORT/ or
      http://127.0.0.1:PORT/; scopes `openid profile offline_access`; authorization_code (PKCE S256
      required), refresh_token (rotated; an ID token with the same `sid` on refresh too).
  For both: a refresh token presented again after its rotation (also two refreshes racing with one
  token) revokes its whole family and counts a reuse detection.
Users: `alice` / `wonderland` ("Alice Liddell"), `bob` / `builder` ("Bob Builder").
Each sign-in on the /authorize form (fields `username`, `password`, `decision`=approve|deny, plus the
request's hidden fields) starts a provider session: a new random `sid`, in that sign-in's ID tokens.

Endpoints: discovery (both well-known documents), /authorize (a sign-in and consent form), /token,
/device_authorization, /device (the verification page), /revoke (RFC 7009), /userinfo, /jwks,
/logout (RP-Initiated Logout: id_token_hint, client_id, post_logout_redirect_uri, state; ends the
hint's session and revokes its tokens), and a protected test API, for a valid bearer access token only:
/api/echo[/...] (any method: what it received, as JSON; with ?answer_hop_by_hop=1 also fields a proxy
must not pass back; with ?answer_header_bytes=N, N bytes more of answer head in X-Padding-* fields; with
?answer_status=S, status S of 100 to 999),
GET /api/slow?ms=N, and
GET /api/stream?bytes=N[&chunk=C][&delay_ms=D][&cut_after=M]: N bytes (byte i is i % 256) declared in
Content-Length, sent in chunks of C (64 KiB by default) D ms apart; with cut_after, the connection closes
after M bytes; with framing=none, no Content-Length (a GET's answer chunked); HEAD too, with framing=both
its answer declaring a Transfer-Encoding beside its length. /test/state counts streams_started,
streams_finished (to their end, or to cut_after) and streams_dropped (the client went away first), of GETs.

For tests only (never a token in /test/state):
  GET  /test/state                   counters, per-client counts, sessions (sid, sub, client, active)
  GET  /test/issued-tokens           client_id: every access, refresh and ID token issued to that client
                                     (for tests that look for them where they must not be)
  POST /test/device                  user_code, action=slow_down|expire
  POST /test/backchannel-uri         client_id, uri: the client's backchannel_logout_uri ("" removes it)
  POST /test/logout-token            sub, sid, aud, iss, iat_offset, jti, events=logout|none, nonce,
                                     signer=provider|other, alg=RS256|RS384|RS512|PS256|HS256|none,
                                     typ (default logout+jwt; iss/aud/jti/typ given empty are left
                                     out) -> {"logout_token"}, not sent
  POST /test/end-session             sid or sub [, client_id, revoke_tokens=yes|no]: ends the session(s)
                                     and POSTs a logout token to the client's backchannel URI ->
                                     {"status", "logout_token", "ended", "sent_to"}
  POST /test/rotate-keys             a new signing key for every later token; the JWKS keeps the one before
  POST /test/token-endpoint          delay_ms, fail=none|503: for every later /token request
  POST /test/revocation-hold         client_id, hold=next|none: `next` holds the next /revoke request of
                                     that client (after it is counted, on arrival, in
                                     revocation_requests_by_client) until `none` releases it, or 30 s pass;
                                     either first releases (or disarms) that client's earlier hold
  POST /test/access-token-lifetime   client_id, seconds: expires_in of that client's later tokens
  POST /test/id-token-padding        client_id, bytes: a `groups` claim of about that many bytes in that
                                     client's later ID tokens (0 for none), as providers that list a
                                     user's groups make them long

  python provider.py [--port N] [--device-interval S] [--device-expires-in S] [--access-token-lifetime S]

It prints `listening on URL` once it accepts connections; URL is also the issuer.
"""

import argparse
import sys
import threading
import time
from urllib.parse import unquote_plus, urlencode, urlsplit

from flask import Flask, jsonify, redirect, request
from joserfc.jwk import KeySet, RSAKey
from werkzeug.serving import make_server

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector
from authlib.oauth2 import OAuth2Error
from authlib.oauth2.rfc8628 import DEVICE_CODE_GRANT_TYPE
from authlib.oauth2.rfc9207 import IssuerParameter
from authlib.oidc.discovery import OpenIDProviderMetadata

import grants
import logout
import pages
from store import ConfidentialClient, PublicClient, Store, Token, User

CLI_SCOPES = ["openid", "profile"]
SCOPES = CLI_SCOPES + ["offline_access"]
GRANT_TYPES = ["authorization_code", "refresh_token", DEVICE_CODE_GRANT_TYPE]
AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]
GATEWAY = "hardtack-gateway"
BACKCHANNEL_HOSTS = ("localhost", "127.0.0.1", "::1")
MAX_DELAY_MS = 120000
# How long a held /revoke waits at most for its release (/test/revocation-hold).
REVOCATION_HOLD_S = 30


def metadata(issuer):
    document = OpenIDProviderMetadata(
        issuer=issuer,
        authorization_endpoint=issuer + "/authorize",
        token_endpoint=issuer + "/token",
        userinfo_endpoint=issuer + "/userinfo",
        jwks_uri=issuer + "/jwks",
        revocation_endpoint=issuer + "/revoke",
        device_authorization_endpoint=issuer + "/device_authorization",
        end_session_endpoint=issuer + "/logout",
        scopes_supported=SCOPES,
        response_types_supported=["code"],
        response_modes_supported=["query"],
        grant_types_supported=GRANT_TYPES,
        subject_types_supported=["public"],
        id_token_signing_alg_values_supported=["RS256"],
        token_endpoint_auth_methods_supported=AUTH_METHODS,
        revocation_endpoint_auth_methods_supported=AUTH_METHODS,
        code_challenge_methods_supported=["S256"],
        claims_supported=["sub", "name", "iss", "aud", "exp", "iat", "auth_time", "nonce", "sid"],
        authorization_response_iss_parameter_supported=True,
        backchannel_logout_supported=True,
        backchannel_logout_session_supported=True,
    )
    document.validate()
    return dict(document)


class Issuer(IssuerParameter):
    def __init__(self, issuer):
        self.issuer = issuer

    def get_issuer(self):
        return self.issuer


def create_app(issuer, options):
    users = [User("alice", "Alice Liddell", "wonderland"), User("bob", "Bob Builder", "builder")]
    cli = PublicClient(
        "hardtack-cli", ["http://127.0.0.1/callback", "http://[::1]/callback"], GRANT_TYPES, " ".join(CLI_SCOPES)
    )
    gateway = ConfidentialClient(
        GATEWAY, "gateway-secret", "/bff/callback", ["authorization_code", "refresh_token"], " ".join(SCOPES)
    )
    store = Store([cli, gateway], users)
    keys = grants.SigningKeys()
    # Signs forged logout tokens: not in the JWKS.
    other_key = RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, auto_kid=True)
    default_lifetime = options.access_token_lifetime

    app = Flask("hardtack-test-provider")
    app.config.update(
        OAUTH2_REFRESH_TOKEN_GENERATOR=True,
        OAUTH2_SCOPES_SUPPORTED=SCOPES,
        OAUTH2_TOKEN_EXPIRES_IN={grant: default_lifetime for grant in GRANT_TYPES},
    )

    def query_client(client_id):
        return store.clients.get(client_id)

    def save_token(fields, oauth_request):
        previous = oauth_request.refresh_token
        code = getattr(oauth_request, "authorization_code", None)
        if previous is not None:
            family, sid, auth_time = previous.family, previous.sid, previous.auth_time
        else:
            family = grants.new_family()
            sid = getattr(code, "sid", None)
            auth_time = code.get_auth_time() if code is not None else None
        token = Token(oauth_request.client, oauth_request.user, fields, family, sid, auth_time)
        store.add_token(token)
        store.count("tokens_issued")
        store.count_for("tokens_issued", oauth_request.client.get_client_id())

    def expires_in(client, grant_type):
        with store.lock:
            return store.lifetimes.get(client.get_client_id(), default_lifetime)

    server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
    server.store = store
    # Access tokens' lifetime per client (POST /test/access-token-lifetime), else --access-token-lifetime.
    generator = server.create_bearer_token_generator(app.config)
    generator.expires_generator = expires_in
    server.register_token_generator("default", generator)
    Issuer(issuer)(server)  # RFC 9207: `iss` in every authorization response
    server.register_grant(grants.CodeGrant, [grants.StrictCodeChallenge(required=True), grants.IDTokens(issuer, keys, store)])
    server.register_grant(grants.RotatingRefreshGrant, [grants.RefreshIDTokens(issuer, keys, store)])
    server.register_grant(grants.DeviceGrant, [grants.DeviceIDTokens(issuer, keys, store)])
    server.register_endpoint(grants.DeviceEndpoint(server, issuer, options.device_interval, options.device_expires_in))
    server.register_endpoint(grants.Revocation)
    protector = ResourceProtector()
    protector.register_token_validator(grants.AccessTokens(store))
    server.register_endpoint(grants.UserInfoAnswer(issuer, protector, store))
    document = metadata(issuer)

    @app.get("/.well-known/openid-configuration")
    @app.get("/.well-known/oauth-authorization-server")
    def discovery():
        return jsonify(document)

    @app.get("/jwks")
    def jwks():
        return jsonify(KeySet(keys.published()).as_dict(private=False))

    @app.route("/authorize", methods=["GET", "POST"])
    def authorize():
        approve = request.form.get("decision") == "approve"
        user = None
        if request.method == "POST" and approve:
            user = store.users.get(request.form.get("username", ""))
            if user is None or not user.password_matches(request.form.get("password")):
                user = None
        try:
            grant = server.get_consent_grant(end_user=user)
        except OAuth2Error as error:
            if error.redirect_uri:
                return server.handle_error_response(request, error)
            return pages.error("{}: {}".format(error.error, error.description or ""))
        if request.method == "GET" or (approve and user is None):
            fields = [(name, value) for name, value in request.values.items(multi=True)
                      if name not in ("username", "password", "decision")]
            message = "Wrong user name or password." if request.method == "POST" else None
            return pages.login(grant.client.client_id, grant.request.payload.scope, fields, message, 401 if message else 200)
        if user is not None:
            # A successful sign-in: a provider session of its own, named in its ID tokens.
            grant.session_id = store.new_session(user, grant.client.get_client_id()).sid
        return server.create_authorization_response(grant_user=user, grant=grant)

    @app.post("/token")
    def token():
        with store.lock:
            delay_ms, fail = store.token_endpoint["delay_ms"], store.token_endpoint["fail"]
        if delay_ms:
            time.sleep(delay_ms / 1000)
        if fail == "503":
            store.count("token_requests_failed")
            return jsonify(error="temporarily_unavailable"), 503, {"Cache-Control": "no-store"}
        return server.create_token_response()

    @app.post("/device_authorization")
    def device_authorization():
        return server.create_endpoint_response("device_authorization")

    @app.route("/device", methods=["GET", "POST"])
    def device():
        code = _canonical(request.values.get("user_code", ""))
        if request.method == "GET":
            return pages.device_form(code)
        with store.lock:
            credential = next((c for c in store.devices.values() if _canonical(c["user_code"]) == code), None)
        if credential is None or credential.is_expired():
            return pages.device_form(code, "Unknown or expired code.", 400)
        approve = request.form.get("decision") == "approve"
        user = store.users.get(request.form.get("username", ""))
        if approve and (user is None or not user.password_matches(request.form.get("password"))):
            return pages.device_form(code, "Wrong user name or password.", 401)
        with store.lock:
            store.device_decisions[credential["user_code"]] = (user, approve)
        return pages.device_done(approve)

    @app.post("/revoke")
    def revoke():
        # Counted as it arrives, before any hold, for the registered client its credentials name (Basic, whose
        # user name is form-encoded (RFC 6749 section 2.3.1), or the form's client_id, which Flask has
        # decoded), authenticated or not: `revocation_requests_by_client` in /test/state.
        auth = request.authorization
        if auth is not None and auth.type == "basic":
            client_id = unquote_plus(auth.username or "")
        else:
            client_id = request.form.get("client_id", "")
        if client_id in store.clients:
            store.count_for("revocation_requests", client_id)
            with store.lock:
                # One request takes the hold: the next waits no more.
                hold = store.revocation_holds.pop(client_id, None)
                if hold is not None:
                    store.revocations_held[client_id] = hold
            if hold is not None:
                hold.wait(REVOCATION_HOLD_S)
        return server.create_endpoint_response("revocation")

    @app.route("/userinfo", methods=["GET", "POST"])
    def userinfo():
        return server.create_endpoint_response("userinfo")

    @app.route("/logout", methods=["GET", "POST"])
    def end_session():
        """OpenID Connect RP-Initiated Logout 1.0, without asking the user to confirm."""
        hint = request.values.get("id_token_hint")
        client_id = request.values.get("client_id")
        target = request.values.get("post_logout_redirect_uri")
        claims = None
        if hint is not None:
            claims = next(
                (found for signer in keys.published() if (found := logout.id_token_hint_claims(hint, signer, issuer))),
                None)
            if claims is None:
                return pages.error("invalid_request: id_token_hint is not an ID token this provider issued")
            audiences = claims.get("aud") if isinstance(claims.get("aud"), list) else [claims.get("aud")]
            if client_id is not None and client_id not in audiences:
                return pages.error("invalid_request: client_id is not the id_token_hint's audience")
            client_id = client_id or audiences[0]
        client = store.clients.get(client_id) if client_id is not None else None
        if client_id is not None and client is None:
            return pages.error("invalid_request: unknown client_id")
        if target is not None and (client is None or not client.check_post_logout_redirect_uri(target)):
            return pages.error("invalid_request: post_logout_redirect_uri is not registered for the client")
        if claims is not None and claims.get("sid"):
            with store.lock:
                session = store.sessions.get(claims["sid"])
                if session is not None:
                    store.end_sessions([session], "logout")
        store.count("logout_requests")
        if target is None:
            return pages.signed_out()
        state = request.values.get("state")
        if state is not None:
            target += ("&" if "?" in target else "?") + urlencode({"state": state})
        return redirect(target, 302)

    def bearer():
        """The access token of `Authorization: Bearer`, when it is live (as /userinfo checks it)."""
        parts = (request.headers.get("Authorization") or "").split(None, 1)
        if len(parts) != 2 or parts[0].lower() != "bearer":
            return None
        found = store.find_token(parts[1].strip(), "access_token")
        if found is None or found.is_expired() or found.is_revoked():
            return None
        return found

    def refused():
        store.count("api_refused")
        headers = {"WWW-Authenticate": 'Bearer error="invalid_token"', "Cache-Control": "no-store"}
        return jsonify(error="invalid_token"), 401, headers

    @app.route("/api/<path:rest>", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    def api(rest):
        if rest == "slow" and request.method == "GET":
            return api_slow()
        if rest == "stream" and request.method in ("GET", "HEAD"):
            return api_stream()
        if rest != "echo" and not rest.startswith("echo/"):
            return jsonify(error="not_found"), 404
        live = bearer()
        if live is None:
            return refused()
        store.count("api_calls")
        raw = request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI") or request.full_path
        headers = {}
        for name, value in request.headers.items():
            name = name.lower()
            value = "present" if name == "authorization" else value
            headers[name] = headers[name] + ", " + value if name in headers else value
        answer = jsonify(
            sub=live.user.sub,
            method=request.method,
            path=raw.split("?", 1)[0],
            query=request.query_string.decode("latin-1"),
            headers=headers,
            body_length=len(request.get_data(cache=False)),
            token_client=live.client.get_client_id(),
            scope=live.scope,
        )
        if request.args.get("answer_hop_by_hop") == "1":
            # Fields a proxy must not pass back: a cookie for the proxy's origin, hop-by-hop ones, and one
            # that a Connection field names; and one it must.
            answer.headers["Set-Cookie"] = "upstream=1; Path=/"
            answer.headers["Keep-Alive"] = "timeout=5"
            answer.headers["Connection"] = "X-Upstream-Hop"
            answer.headers["X-Upstream-Hop"] = "1"
            answer.headers["X-Kept"] = "yes"
        padding = request.args.get("answer_header_bytes", "")
        if padding.isdecimal() and int(padding) <= 65536:
            # An answer head of about that many bytes more, in fields of up to 1000 bytes.
            left, index = int(padding), 0
            while left > 0:
                answer.headers["X-Padding-%d" % index] = "p" * min(1000, left)
                left, index = left - 1000, index + 1
        status = request.args.get("answer_status", "")
        if status.isdecimal() and 100 <= int(status) <= 999:
            # A status a proxy cannot pass on as it is (a 1xx as the final answer, one past 599).
            answer.status = "%s Strange" % status
        return answer

    def api_slow():
        try:
            ms = int(request.args.get("ms", "0"))
        except ValueError:
            ms = -1
        if not 0 <= ms <= MAX_DELAY_MS:
            return jsonify(error="invalid_request", error_description="ms: 0 to {}".format(MAX_DELAY_MS)), 400
        live = bearer()
        if live is None:
            return refused()
        store.count("api_calls")
        time.sleep(ms / 1000)
        return jsonify(sub=live.user.sub, slept_ms=ms, token_client=live.client.get_client_id())

    def api_stream():
        def number(name, default, most):
            try:
                value = int(request.args.get(name, str(default)))
            except ValueError:
                return None
            return value if 0 <= value <= most else None

        total = number("bytes", 0, 1 << 32)
        chunk = number("chunk", 65536, 1 << 20)
        delay_ms = number("delay_ms", 0, MAX_DELAY_MS)
        cut_after = number("cut_after", total or 0, total or 0)
        if None in (total, chunk, delay_ms, cut_after) or chunk == 0:
            return jsonify(error="invalid_request", error_description="bytes, chunk, delay_ms, cut_after"), 400
        live = bearer()
        if live is None:
            return refused()
        store.count("api_calls")
        if request.method == "GET":
            store.count("streams_started")
        pattern = bytes(range(256)) * (chunk // 256 + 2)

        def generate():
            sent = 0
            try:
                while sent < cut_after:
                    if sent and delay_ms:
                        time.sleep(delay_ms / 1000)
                    size = min(chunk, cut_after - sent)
                    yield pattern[sent % 256 : sent % 256 + size]
                    sent += size
            finally:
                store.count("streams_finished" if sent >= cut_after else "streams_dropped")

        headers = {"Content-Length": str(total), "Content-Type": "application/octet-stream", "Cache-Control": "no-store"}
        framing = request.args.get("framing", "")
        if framing == "none":
            # No length: a GET's answer is chunked; a HEAD's has neither field.
            del headers["Content-Length"]
        elif framing == "both" and request.method == "HEAD":
            # Framed two ways, which a proxy must not pass on as it is (RFC 9112 §6.3).
            headers["Transfer-Encoding"] = "chunked"
        return app.response_class(generate(), headers=headers)

    @app.get("/test/state")
    def test_state():
        return jsonify(store.state())

    @app.get("/test/issued-tokens")
    def test_issued_tokens():
        # For tests that look for tokens where they must not be (a gateway's store): every access, refresh
        # and ID token issued to one client. Test-only, like the rest of this loopback provider.
        client_id = request.args.get("client_id", "")
        with store.lock:
            issued = [t for t in store.tokens if t.client.get_client_id() == client_id]
            values = []
            for token in issued:
                values += [v for v in (token.access_token, token.refresh_token, token.fields.get("id_token")) if v]
        return jsonify(values)

    @app.post("/test/device")
    def test_device():
        code = _canonical(request.form.get("user_code", ""))
        action = request.form.get("action")
        with store.lock:
            credential = next((c for c in store.devices.values() if _canonical(c["user_code"]) == code), None)
            if credential is None or action not in ("slow_down", "expire"):
                return jsonify(error="unknown user_code or action"), 400
            if action == "expire":
                credential["expires_at"] = 0
            else:
                store.device_tricks[credential["user_code"]] = "slow_down"
        return jsonify(done=action)

    @app.post("/test/backchannel-uri")
    def test_backchannel_uri():
        client_id, uri = request.form.get("client_id", GATEWAY), request.form.get("uri", "")
        if client_id not in store.clients:
            return jsonify(error="unknown client_id"), 400
        if uri and not _loopback_http(uri):
            return jsonify(error="uri: an http(s) URL on localhost, 127.0.0.1 or [::1]"), 400
        with store.lock:
            if uri:
                store.backchannel_uris[client_id] = uri
            else:
                store.backchannel_uris.pop(client_id, None)
        return jsonify(client_id=client_id, backchannel_logout_uri=uri or None)

    @app.post("/test/logout-token")
    def test_logout_token():
        form = request.form
        events, signer = form.get("events", "logout"), form.get("signer", "provider")
        alg, typ = form.get("alg", "RS256"), form.get("typ", "logout+jwt")
        try:
            iat_offset = int(form.get("iat_offset", "0"))
        except ValueError:
            return jsonify(error="iat_offset: a whole number of seconds"), 400
        if events not in ("logout", "none") or signer not in ("provider", "other") or alg not in logout.ALGORITHMS:
            return jsonify(error="events: logout|none, signer: provider|other, alg: " + "|".join(logout.ALGORITHMS)), 400
        claims = logout.logout_token_claims(
            form.get("iss", issuer), form.get("aud", GATEWAY), sub=form.get("sub"), sid=form.get("sid"),
            iat_offset=iat_offset, jti=form.get("jti"), events=events == "logout", nonce=form.get("nonce"),
        )
        signed = logout.logout_token(claims, keys.current if signer == "provider" else other_key, alg, typ)
        return jsonify(logout_token=signed)

    @app.post("/test/rotate-keys")
    def test_rotate_keys():
        """A new signing key: it signs every later token; the JWKS publishes it and the one before."""
        keys.rotate()
        return jsonify(kid=keys.current.kid, published=[k.kid for k in keys.published()])

    @app.post("/test/end-session")
    def test_end_session():
        """Ends a session as an administrator would, and tells the client by back-channel logout."""
        sid, sub = request.form.get("sid"), request.form.get("sub")
        revoke_tokens = request.form.get("revoke_tokens", "yes") != "no"
        with store.lock:
            if sid:
                session = store.sessions.get(sid)
                if session is None:
                    return jsonify(error="unknown sid"), 404
                sessions, sub = [session], session.user.sub
                client_id = request.form.get("client_id", session.client_id)
            elif sub:
                if sub not in store.users:
                    return jsonify(error="unknown sub"), 404
                sessions = [s for s in store.sessions.values() if s.user.sub == sub]
                client_id = request.form.get("client_id", GATEWAY)
            else:
                return jsonify(error="sid or sub"), 400
            ended = store.end_sessions(sessions, "administrator", revoke_tokens)
            uri = store.backchannel_uris.get(client_id)
        claims = logout.logout_token_claims(issuer, client_id, sub=sub, sid=sid)
        signed = logout.logout_token(claims, keys.current)
        answer = {"status": None, "logout_token": signed, "ended": ended, "sent_to": uri}
        if uri is None:
            answer["error"] = "no backchannel_logout_uri registered for " + client_id
            return jsonify(answer)
        status, why = logout.send(uri, signed)  # not under the lock: the client may call back
        answer["status"] = status
        if status is None:
            store.count("backchannel_failed")
            answer["error"] = why
        else:
            store.count("backchannel_sent")
        return jsonify(answer)

    @app.post("/test/token-endpoint")
    def test_token_endpoint():
        fail = request.form.get("fail", "none")
        try:
            delay_ms = int(request.form.get("delay_ms", "0"))
        except ValueError:
            delay_ms = -1
        if fail not in ("none", "503") or not 0 <= delay_ms <= MAX_DELAY_MS:
            return jsonify(error="fail: none|503, delay_ms: 0 to {}".format(MAX_DELAY_MS)), 400
        with store.lock:
            store.token_endpoint.update(delay_ms=delay_ms, fail=fail)
            return jsonify(store.token_endpoint)

    @app.post("/test/revocation-hold")
    def test_revocation_hold():
        client_id, hold = request.form.get("client_id", ""), request.form.get("hold", "")
        if client_id not in store.clients or hold not in ("next", "none"):
            return jsonify(error="client_id: a registered client, hold: next or none"), 400
        with store.lock:
            # Whatever was armed or is held is released: a hold never outlives the test that set it.
            for table in (store.revocation_holds, store.revocations_held):
                released = table.pop(client_id, None)
                if released is not None:
                    released.set()
            if hold == "next":
                store.revocation_holds[client_id] = threading.Event()
            return jsonify(client_id=client_id, hold=hold)

    @app.post("/test/id-token-padding")
    def test_id_token_padding():
        client_id, padding = request.form.get("client_id", ""), request.form.get("bytes", "")
        if client_id not in store.clients:
            return jsonify(error="unknown client_id"), 400
        if not padding.isdecimal() or int(padding) > 65536:
            return jsonify(error="bytes: 0 to 65536"), 400
        with store.lock:
            store.id_token_padding[client_id] = int(padding)
            return jsonify(client_id=client_id, bytes=int(padding))

    @app.post("/test/access-token-lifetime")
    def test_access_token_lifetime():
        client_id, seconds = request.form.get("client_id", ""), request.form.get("seconds", "")
        if client_id not in store.clients:
            return jsonify(error="unknown client_id"), 400
        with store.lock:
            if seconds in ("", "default"):
                store.lifetimes.pop(client_id, None)
            elif seconds.isdigit() and int(seconds) > 0:
                store.lifetimes[client_id] = int(seconds)
            else:
                return jsonify(error="seconds: a positive whole number, or default"), 400
            return jsonify(client_id=client_id, expires_in=store.lifetimes.get(client_id, default_lifetime))

    return app


def _loopback_http(uri):
    parts = urlsplit(uri)
    return parts.scheme in ("http", "https") and parts.hostname in BACKCHANNEL_HOSTS


def _canonical(user_code):
    return "".join(ch for ch in user_code.upper() if ch.isalnum())


def main(argv):
    parser = argparse.ArgumentParser(description="Hardtack's Authlib test provider (loopback only)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--device-interval", type=int, default=1)
    parser.add_argument("--device-expires-in", type=int, default=600)
    parser.add_argument("--access-token-lifetime", type=int, default=3600)
    options = parser.parse_args(argv)

    holder = {}
    http = make_server("127.0.0.1", options.port, lambda env, start: holder["app"](env, start), threaded=True)
    issuer = "http://127.0.0.1:{}".format(http.server_port)
    holder["app"] = create_app(issuer, options)
    print("listening on " + issuer, flush=True)
    http.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
