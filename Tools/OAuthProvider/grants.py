"""Authlib's grants and endpoints, given storage in the provider's in-memory Store.

The rules are Authlib's; what is ours is where things are kept and a few choices a real provider
makes: PKCE is required and S256 only, codes are single use, refresh tokens rotate and a replayed
one revokes its whole family (two refreshes racing with one token count as a replay too), ID tokens
name the provider session (`sid`) of their sign-in, and the device grant answers `slow_down` to a client
that polls faster than the interval it was given.

Client authentication: a request that carries a secret (HTTP Basic, or `client_secret` in the form) is
checked with `client_secret_basic` / `client_secret_post`; one without is `none`, which only the public
client may use. So the public client's requests are handled exactly as they were before the
confidential client came.
"""

import time

from authlib.oauth2.rfc6749 import InvalidGrantError, InvalidRequestError, grants
from authlib.oauth2.rfc6750 import BearerTokenValidator
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from joserfc.jwk import RSAKey
from authlib.oauth2.rfc8628 import DeviceAuthorizationEndpoint, DeviceCodeGrant, DeviceCredentialDict
from authlib.oidc.core import OpenIDCode, OpenIDToken, UserInfo, UserInfoEndpoint
from authlib.common.security import generate_token

from store import AuthorizationCode

SECRET_METHODS = ["client_secret_basic", "client_secret_post"]

CODE_LIFETIME = 60
# A poll this much earlier than the interval is still on time (timers and scheduling jitter).
POLL_TOLERANCE = 0.25


def store_of(server):
    return server.store


def auth_methods(request):
    """The client authentication methods to try for this request: the secret-based ones when it
    carries a secret, else `none`."""
    scheme = (request.headers.get("Authorization") or "").split(None, 1)[:1]
    if [s.lower() for s in scheme] == ["basic"] or request.form.get("client_secret"):
        return SECRET_METHODS
    return ["none"]


class ClientAuthByRequest:
    """For a grant: authenticate the client with the methods `auth_methods` picks."""

    def authenticate_token_endpoint_client(self):
        client = self.server.authenticate_client(self.request, auth_methods(self.request))
        self.server.send_signal("after_authenticate_client", client=client, grant=self)
        return client


class StrictCodeChallenge(CodeChallenge):
    """PKCE required on every authorization request, S256 only (RFC 9700 §2.1.1); Authlib's own
    `required=True` only insists on a verifier at the token endpoint."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant, redirect_uri):
        payload = grant.request.payload.data
        if not payload.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: missing 'code_challenge'")
        if payload.get("code_challenge_method") != "S256":
            raise InvalidRequestError("PKCE is required with code_challenge_method=S256")
        super().validate_code_challenge(grant, redirect_uri)


class CodeGrant(ClientAuthByRequest, grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"] + SECRET_METHODS

    #: the provider session of the sign-in being answered (set by /authorize before the response)
    session_id = None

    def save_authorization_code(self, code, request):
        payload = request.payload.data
        item = AuthorizationCode(
            code=code,
            client_id=request.client.get_client_id(),
            user=request.user,
            redirect_uri=request.payload.redirect_uri,
            scope=request.payload.scope,
            challenge=payload.get("code_challenge"),
            method=payload.get("code_challenge_method"),
            nonce=payload.get("nonce"),
            lifetime=CODE_LIFETIME,
            sid=self.session_id,
        )
        store = store_of(self.server)
        with store.lock:
            store.codes[code] = item
        store.count("authorization_codes_issued")

    def query_authorization_code(self, code, client):
        store = store_of(self.server)
        with store.lock:
            item = store.codes.get(code)
        if item and item.client_id == client.get_client_id() and item.expires_at > time.time():
            return item
        return None

    def delete_authorization_code(self, authorization_code):
        store = store_of(self.server)
        with store.lock:
            store.codes.pop(authorization_code.code, None)
        store.count("codes_exchanged")

    def authenticate_user(self, authorization_code):
        return authorization_code.user


class SigningKeys:
    """The provider's RS256 signing keys: the current one signs; the JWKS publishes it and the one it
    replaced, so that tokens signed before a rotation still verify."""

    def __init__(self):
        self.current = self.generate()
        self.previous = []

    @staticmethod
    def generate():
        return RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, auto_kid=True)

    def rotate(self):
        self.previous = [self.current]
        self.current = self.generate()

    def published(self):
        return [self.current] + self.previous


class SignedIDTokens:
    """ID tokens signed RS256 with the provider's current key, `kid` in the header, `aud` the client."""

    def __init__(self, issuer, keys, store):
        self.require_nonce = False
        self.issuer = issuer
        self.keys = keys
        self.store = store

    def resolve_client_private_key(self, client):
        return self.keys.current

    def get_client_algorithm(self, client):
        return "RS256"

    def get_encode_header(self, client):
        return {"alg": "RS256", "kid": self.keys.current.kid, "typ": "JWT"}

    def get_client_claims(self, client):
        claims = {"iss": self.issuer, "aud": [client.get_client_id()]}
        with self.store.lock:
            padding = self.store.id_token_padding.get(client.get_client_id(), 0)
        if padding:
            # As a provider that puts a user's groups in the ID token: a long one (POST /test/id-token-padding).
            claims["groups"] = ["group-%04d" % index for index in range(padding // 13 + 1)]
        return claims

    def generate_user_info(self, user, scope):
        return user_info(user, scope)


class IDTokens(SignedIDTokens, OpenIDCode):
    """For the code grant, with the nonce of the authorization request and the `sid` of the sign-in."""

    def get_authorization_code_claims(self, authorization_code):
        claims = super().get_authorization_code_claims(authorization_code)
        if getattr(authorization_code, "sid", None):
            claims["sid"] = authorization_code.sid
        return claims

    def exists_nonce(self, nonce, request):
        # A nonce already tied to a live code is a replayed authorization request.
        with self.store.lock:
            return any(item.nonce == nonce for item in self.store.codes.values())


class DeviceIDTokens(SignedIDTokens, OpenIDToken):
    """For the device grant (no nonce there)."""


class RefreshIDTokens(SignedIDTokens, OpenIDToken):
    """For the refresh grant, to the clients that get one then (the confidential client only; OpenID
    Connect Core §12.2): the same `sid` and `auth_time` as the sign-in's, no nonce."""

    def process_token(self, grant, response):
        if not getattr(grant.request.client, "id_token_on_refresh", False):
            return response[1]
        return super().process_token(grant, response)

    def get_compatible_claims(self, request):
        claims = super().get_compatible_claims(request)
        previous = request.refresh_token
        if previous is not None:
            if previous.auth_time:
                claims["auth_time"] = previous.auth_time
            if previous.sid:
                claims["sid"] = previous.sid
        return claims


def user_info(user, scope):
    return UserInfo(sub=user.sub, name=user.name).filter(scope)


class RotatingRefreshGrant(ClientAuthByRequest, grants.RefreshTokenGrant):
    """Each refresh returns a new refresh token and retires the old one; presenting a retired one
    again is a replay (RFC 9700 §4.14.2) and revokes every token of that sign-in. The old one is
    retired the moment a request is found valid, under the store's lock: of two refreshes racing with
    one token, the second is a replay."""

    TOKEN_ENDPOINT_AUTH_METHODS = ["none"] + SECRET_METHODS
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        store = store_of(self.server)
        token = store.find_token(refresh_token, "refresh_token")
        if token is None:
            return None
        if token.refresh_state == "rotated":
            self._replayed(token)
            return None
        return token if token.refresh_state == "active" else None

    def _replayed(self, token):
        store = store_of(self.server)
        store.revoke_family(token.family)
        store.count("refresh_reuse_detected")
        store.count_for("reuse_detections", token.client.get_client_id())

    def validate_token_request(self):
        super().validate_token_request()
        token = self.request.refresh_token
        store = store_of(self.server)
        with store.lock:
            claimed = token.refresh_state == "active"
            if claimed:
                token.refresh_state = "rotated"
            replayed = token.refresh_state == "rotated" and not claimed
        if replayed:
            self._replayed(token)
        if not claimed:
            raise InvalidGrantError()

    def authenticate_user(self, refresh_token):
        return refresh_token.user

    def revoke_old_credential(self, refresh_token):
        store = store_of(self.server)
        with store.lock:
            refresh_token.refresh_state = "rotated"
            refresh_token.access_revoked = True
            store.counters["refresh_rotations"] += 1
            store.count_for("refreshes", refresh_token.client.get_client_id())


class DeviceGrant(DeviceCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]

    def query_device_credential(self, device_code):
        store = store_of(self.server)
        with store.lock:
            credential = store.devices.get(device_code)
        if credential is not None:
            self._record_poll(credential)
        return credential

    def _record_poll(self, credential):
        store = store_of(self.server)
        with store.lock:
            times = store.poll_times.setdefault(credential["user_code"], [])
            self.previous_poll = times[-1] if times else credential["issued_at"]
            times.append(time.time())
        store.count("device_polls")

    def query_user_grant(self, user_code):
        store = store_of(self.server)
        with store.lock:
            return store.device_decisions.get(user_code)

    def should_slow_down(self, credential):
        store = store_of(self.server)
        with store.lock:
            forced = store.device_tricks.pop(credential["user_code"], None) == "slow_down"
            interval = credential["interval"] + 5 * credential.get("slow_downs", 0)
            early = time.time() - self.previous_poll < interval - POLL_TOLERANCE
            if forced or early:
                credential["slow_downs"] = credential.get("slow_downs", 0) + 1
                store.counters["device_slow_downs"] += 1
                return True
        return False


class DeviceEndpoint(DeviceAuthorizationEndpoint):
    CLIENT_AUTH_METHODS = ["none"]

    def __init__(self, server, issuer, interval, expires_in):
        super().__init__(server)
        self.issuer = issuer
        self.INTERVAL = interval
        self.EXPIRES_IN = expires_in

    def get_verification_uri(self):
        return self.issuer + "/device"

    def save_device_credential(self, client_id, scope, data):
        credential = DeviceCredentialDict(
            client_id=client_id,
            scope=scope,
            issued_at=time.time(),
            expires_at=time.time() + data["expires_in"],
            **data,
        )
        store = store_of(self.server)
        with store.lock:
            store.devices[data["device_code"]] = credential


class Revocation(RevocationEndpoint):
    """RFC 7009: the public client with `none`, the confidential one with its secret; revoking a
    refresh token revokes its access token too."""

    CLIENT_AUTH_METHODS = ["none"] + SECRET_METHODS

    def authenticate_endpoint_client(self, request):
        client = self.server.authenticate_client(request, auth_methods(request), self.ENDPOINT_NAME)
        request.client = client
        return client

    def query_token(self, token_string, token_type_hint):
        store = store_of(self.server)
        return store.find_token(token_string, token_type_hint) or store.find_token(token_string, None)

    def revoke_token(self, token, request):
        store = store_of(self.server)
        with store.lock:
            token.access_revoked = True
            if request.form.get("token_type_hint") != "access_token" and token.refresh_state == "active":
                token.refresh_state = "revoked"
            store.counters["revocations"] += 1
            store.count_for("revocations", token.client.get_client_id())


class AccessTokens(BearerTokenValidator):
    def __init__(self, store):
        super().__init__()
        self.store = store

    def authenticate_token(self, token_string):
        return self.store.find_token(token_string, "access_token")


class UserInfoAnswer(UserInfoEndpoint):
    def __init__(self, issuer, protector, store):
        super().__init__(resource_protector=protector)
        self.issuer = issuer
        self.store = store

    def get_issuer(self):
        return self.issuer

    def generate_user_info(self, user, scope):
        self.store.count("userinfo_served")
        return user_info(user, scope)


def new_family():
    return generate_token(16)
