"""In-memory state of the test provider: its one public client, its one user, and the codes, tokens
and device grants it has issued, with the counters the tests read back through /test/state.

Nothing here is persisted: every run of the provider starts empty. One lock guards everything,
because the Flask development server answers each request on a thread of its own.
"""

import secrets
import threading
import time
from urllib.parse import urlsplit

from authlib.oauth2.rfc6749 import ClientMixin, TokenMixin
from authlib.oidc.core import AuthorizationCodeMixin

LOOPBACK_HOSTS = ("127.0.0.1", "::1")


class User:
    """The resource owner the tests sign in as."""

    def __init__(self, sub, name, password):
        self.sub = sub
        self.name = name
        self.password = password

    def get_user_id(self):
        return self.sub

    def password_matches(self, password):
        return secrets.compare_digest(self.password.encode(), (password or "").encode())


class PublicClient(ClientMixin):
    """A native app's client (RFC 8252 §8.4): no secret, authenticates with `none` everywhere, and
    redirects only to loopback URIs whose port it picks at run time (§7.3)."""

    def __init__(self, client_id, redirect_uris, grant_types, scope):
        self.client_id = client_id
        self.redirect_uris = redirect_uris
        self.grant_types = grant_types
        self.scope = scope
        self.client_metadata = {"token_endpoint_auth_method": "none"}

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        # Each sign-in has its own port: the client must always say which URI it listens on.
        return None

    def get_allowed_scope(self, scope):
        allowed = set(self.scope.split())
        return " ".join(s for s in (scope or "").split() if s in allowed)

    def check_redirect_uri(self, redirect_uri):
        return any(_redirect_matches(registered, redirect_uri) for registered in self.redirect_uris)

    def check_client_secret(self, client_secret):
        return False

    def check_endpoint_auth_method(self, method, endpoint):
        return method == "none"

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


def _redirect_matches(registered, asked):
    """Exact match, except that a loopback URI registered without a port matches on any port (RFC
    8252 §7.3): same scheme, host, path and query. Authlib leaves this check to the client model."""
    if registered == asked:
        return True
    want, got = urlsplit(registered), urlsplit(asked)
    if want.scheme != "http" or want.hostname not in LOOPBACK_HOSTS or want.port is not None:
        return False
    try:
        port = got.port
    except ValueError:  # a port that is not a number
        return False
    return (
        got.scheme == "http"
        and got.hostname == want.hostname
        and port is not None
        and got.username is None
        and got.password is None
        and not got.fragment
        and (got.path, got.query) == (want.path, want.query)
    )


class AuthorizationCode(AuthorizationCodeMixin):
    """One authorization code, single use, with the PKCE challenge and nonce it was issued for."""

    def __init__(self, code, client_id, user, redirect_uri, scope, challenge, method, nonce, lifetime):
        self.code = code
        self.client_id = client_id
        self.user = user
        self.redirect_uri = redirect_uri
        self.scope = scope
        self.code_challenge = challenge
        self.code_challenge_method = method
        self.nonce = nonce
        self.auth_time = int(time.time())
        self.expires_at = time.time() + lifetime

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return self.nonce

    def get_auth_time(self):
        return self.auth_time

    def get_acr(self):
        return None

    def get_amr(self):
        return None


class Token(TokenMixin):
    """An access token and its refresh token, issued together; `family` ties the rotations of one
    sign-in together so that a replayed refresh token can revoke all of them."""

    def __init__(self, client, user, fields, family):
        self.client = client
        self.user = user
        self.access_token = fields["access_token"]
        self.refresh_token = fields.get("refresh_token")
        self.scope = fields.get("scope", "")
        self.issued_at = time.time()
        self.expires_in = int(fields.get("expires_in", 0))
        self.family = family
        self.access_revoked = False
        self.refresh_state = "active" if self.refresh_token else None  # active, rotated, revoked

    def check_client(self, client):
        return client.get_client_id() == self.client.get_client_id()

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.expires_in

    def is_expired(self):
        return time.time() >= self.issued_at + self.expires_in

    def is_revoked(self):
        return self.access_revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return self.client


class Store:
    """Everything the provider remembers, behind one lock."""

    def __init__(self, client, user):
        self.lock = threading.RLock()
        self.client = client
        self.users = {user.sub: user}
        self.codes = {}
        self.tokens = []
        self.devices = {}  # device_code -> authlib DeviceCredentialDict
        self.device_decisions = {}  # user_code -> (user, approved)
        self.device_tricks = {}  # user_code -> "slow_down" for the next poll (tests only)
        self.counters = {
            "authorization_codes_issued": 0,
            "codes_exchanged": 0,
            "tokens_issued": 0,
            "refresh_rotations": 0,
            "refresh_reuse_detected": 0,
            "revocations": 0,
            "userinfo_served": 0,
            "device_polls": 0,
            "device_slow_downs": 0,
        }
        self.poll_times = {}  # user_code -> [time of each poll]

    def count(self, name, by=1):
        with self.lock:
            self.counters[name] = self.counters.get(name, 0) + by

    def find_token(self, value, kind):
        with self.lock:
            for token in self.tokens:
                if kind in (None, "access_token") and secrets.compare_digest(token.access_token, value):
                    return token
                if kind in (None, "refresh_token") and token.refresh_token and secrets.compare_digest(
                    token.refresh_token, value
                ):
                    return token
            return None

    def revoke_family(self, family):
        with self.lock:
            for token in self.tokens:
                if token.family == family:
                    token.access_revoked = True
                    if token.refresh_state == "active":
                        token.refresh_state = "revoked"

    def state(self):
        """What the tests may see: counters and token states, never a token or code."""
        with self.lock:
            return {
                "counters": dict(self.counters),
                "refresh_tokens": {
                    state: sum(1 for t in self.tokens if t.refresh_state == state)
                    for state in ("active", "rotated", "revoked")
                },
                "access_tokens_revoked": sum(1 for t in self.tokens if t.access_revoked),
                "device_polls": {code: times[:] for code, times in self.poll_times.items()},
            }
