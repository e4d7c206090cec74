"""Hardtack's own OAuth 2.0 / OpenID Connect provider for the interop tests, built on Authlib's grant
implementations (Flask integration). Run by Tools/oauth-server in .build-venv/authlib; see
docs/testing.md. In memory, loopback only, one public client and one user:

  client `hardtack-cli`: no secret (`none`), redirect http://127.0.0.1/callback on any port (RFC 8252),
      authorization_code (PKCE S256 required), refresh_token (rotated), device_code (RFC 8628)
  user `alice`, password `wonderland`, name "Alice Liddell"

Endpoints: discovery (both well-known documents), /authorize (a sign-in and consent form), /token,
/device_authorization, /device (the verification page), /revoke (RFC 7009), /userinfo, /jwks.
For tests only: GET /test/state (counters, never a token) and POST /test/device (make a device code's
next poll answer slow_down, or expire it).

  python provider.py [--port N] [--device-interval S] [--device-expires-in S] [--access-token-lifetime S]

It prints `listening on URL` once it accepts connections; URL is also the issuer.
"""

import argparse
import sys

from flask import Flask, jsonify, request
from joserfc.jwk import KeySet, RSAKey
from werkzeug.serving import make_server

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector
from authlib.oauth2 import OAuth2Error
from authlib.oauth2.rfc8628 import DEVICE_CODE_GRANT_TYPE
from authlib.oauth2.rfc9207 import IssuerParameter
from authlib.oidc.discovery import OpenIDProviderMetadata

import grants
import pages
from store import PublicClient, Store, Token, User

SCOPES = ["openid", "profile"]
GRANT_TYPES = ["authorization_code", "refresh_token", DEVICE_CODE_GRANT_TYPE]


def metadata(issuer):
    document = OpenIDProviderMetadata(
        issuer=issuer,
        authorization_endpoint=issuer + "/authorize",
        token_endpoint=issuer + "/token",
        userinfo_endpoint=issuer + "/userinfo",
        jwks_uri=issuer + "/jwks",
        revocation_endpoint=issuer + "/revoke",
        device_authorization_endpoint=issuer + "/device_authorization",
        scopes_supported=SCOPES,
        response_types_supported=["code"],
        response_modes_supported=["query"],
        grant_types_supported=GRANT_TYPES,
        subject_types_supported=["public"],
        id_token_signing_alg_values_supported=["RS256"],
        token_endpoint_auth_methods_supported=["none"],
        revocation_endpoint_auth_methods_supported=["none"],
        code_challenge_methods_supported=["S256"],
        claims_supported=["sub", "name", "iss", "aud", "exp", "iat", "auth_time", "nonce"],
        authorization_response_iss_parameter_supported=True,
    )
    document.validate()
    return dict(document)


class Issuer(IssuerParameter):
    def __init__(self, issuer):
        self.issuer = issuer

    def get_issuer(self):
        return self.issuer


def create_app(issuer, options):
    alice = User("alice", "Alice Liddell", "wonderland")
    client = PublicClient(
        "hardtack-cli", ["http://127.0.0.1/callback", "http://[::1]/callback"], GRANT_TYPES, " ".join(SCOPES)
    )
    store = Store(client, alice)
    key = RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, auto_kid=True)
    lifetime = options.access_token_lifetime

    app = Flask("hardtack-test-provider")
    app.config.update(
        OAUTH2_REFRESH_TOKEN_GENERATOR=True,
        OAUTH2_SCOPES_SUPPORTED=SCOPES,
        OAUTH2_TOKEN_EXPIRES_IN={grant: lifetime for grant in GRANT_TYPES},
    )

    def query_client(client_id):
        return client if client_id == client.client_id else None

    def save_token(fields, oauth_request):
        previous = oauth_request.refresh_token
        family = previous.family if previous is not None else grants.new_family()
        token = Token(oauth_request.client, oauth_request.user, fields, family)
        with store.lock:
            store.tokens.append(token)
        store.count("tokens_issued")

    server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
    server.store = store
    Issuer(issuer)(server)  # RFC 9207: `iss` in every authorization response
    server.register_grant(grants.CodeGrant, [grants.StrictCodeChallenge(required=True), grants.IDTokens(issuer, key, store)])
    server.register_grant(grants.RotatingRefreshGrant)
    server.register_grant(grants.DeviceGrant, [grants.DeviceIDTokens(issuer, key, store)])
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
        return jsonify(KeySet([key]).as_dict(private=False))

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
            return pages.login(client.client_id, grant.request.payload.scope, fields, message, 401 if message else 200)
        return server.create_authorization_response(grant_user=user, grant=grant)

    @app.post("/token")
    def token():
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
        return server.create_endpoint_response("revocation")

    @app.route("/userinfo", methods=["GET", "POST"])
    def userinfo():
        return server.create_endpoint_response("userinfo")

    @app.get("/test/state")
    def test_state():
        return jsonify(store.state())

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

    return app


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
