"""In-memory state of the test provider: its clients (a public one and a confidential one), its users,
the codes, tokens, device grants and sign-in sessions it has issued, the knobs the tests turn, and the
counters the tests read back through /test/state.

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
# Where the gateway (a web app on a free port) may be: `localhost` or IPv4 loopback, any port.
GATEWAY_HOSTS = ("localhost", "127.0.0.1")


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
        # No ID token on refresh, no post-logout redirect: as before the gateway client came.
        self.id_token_on_refresh = False

    def get_client_id(self):
        return self.client_id

    def check_post_logout_redirect_uri(self, uri):
        return False

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


class ConfidentialClient(PublicClient):
    """A web app's client (the backend-for-frontend gateway): a secret, sent with HTTP Basic
    (`client_secret_basic`) or in the form (`client_secret_post`) at the token and revocation endpoints;
    it redirects to `PATH` at `localhost` or `127.0.0.1` on whatever port it listens on, and after
    sign-out to `/` there."""

    AUTH_METHODS = ("client_secret_basic", "client_secret_post")

    def __init__(self, client_id, secret, callback_path, grant_types, scope):
        super().__init__(client_id, [], grant_types, scope)
        self.secret = secret
        self.callback_path = callback_path
        self.client_metadata = {"token_endpoint_auth_method": "client_secret_basic"}
        self.id_token_on_refresh = True

    def check_redirect_uri(self, redirect_uri):
        return _any_port_uri(redirect_uri, GATEWAY_HOSTS, self.callback_path)

    def check_post_logout_redirect_uri(self, uri):
        return _any_port_uri(uri, GATEWAY_HOSTS, "/")

    def check_client_secret(self, client_secret):
        return secrets.compare_digest(self.secret.encode(), (client_secret or "").encode())

    def check_endpoint_auth_method(self, method, endpoint):
        return method in self.AUTH_METHODS


def _any_port_uri(asked, hosts, path):
    """`http://HOST:PORT` + `path` exactly, HOST one of `hosts`, PORT any (given)."""
    got = urlsplit(asked or "")
    try:
        port = got.port
    except ValueError:
        return False
    return (
        got.scheme == "http"
        and got.hostname in hosts
        and port is not None
        and got.username is None
        and got.password is None
        and not got.query
        and not got.fragment
        and got.path == path
        and got.netloc.lower() == "{}:{}".format(got.hostname, port)
    )


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
    """One authorization code, single use, with the PKCE challenge and nonce it was issued for, and the
    provider session (`sid`) of the sign-in that made it."""

    def __init__(self, code, client_id, user, redirect_uri, scope, challenge, method, nonce, lifetime, sid=None):
        self.code = code
        self.sid = sid
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
    sign-in together so that a replayed refresh token can revoke all of them, and `sid` ties them to the
    provider session that ending it revokes."""

    def __init__(self, client, user, fields, family, sid=None, auth_time=None):
        self.client = client
        self.sid = sid  # the provider session of the sign-in, None for the device grant
        self.auth_time = auth_time
        self.user = user
        # The token response itself: OpenID's hook adds the `id_token` to it after it is saved.
        self.fields = fields
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


class ProviderSession:
    """One sign-in on the /authorize form: its `sid` goes into the ID tokens of that sign-in."""

    def __init__(self, sid, user, client_id):
        self.sid = sid
        self.user = user
        self.client_id = client_id
        self.auth_time = int(time.time())
        self.ended_at = None
        self.ended_by = None  # "logout" (RP-initiated) or "administrator" (/test/end-session)

    @property
    def active(self):
        return self.ended_at is None


class Store:
    """Everything the provider remembers, behind one lock."""

    def __init__(self, clients, users):
        self.lock = threading.RLock()
        self.clients = {client.client_id: client for client in clients}
        self.client = clients[0]
        self.users = {user.sub: user for user in users}
        self.codes = {}
        self.tokens = []
        self.revoked_families = set()  # a token saved later into one of them is born revoked
        self.devices = {}  # device_code -> authlib DeviceCredentialDict
        self.device_decisions = {}  # user_code -> (user, approved)
        self.device_tricks = {}  # user_code -> "slow_down" for the next poll (tests only)
        self.sessions = {}  # sid -> ProviderSession
        self.backchannel_uris = {}  # client_id -> backchannel_logout_uri (tests register it)
        self.lifetimes = {}  # client_id -> access token lifetime in seconds (tests set it)
        self.token_endpoint = {"delay_ms": 0, "fail": "none"}  # faults of the token endpoint (tests)
        self.revocation_holds = {}  # client_id -> Event the next /revoke of that client waits on (tests)
        self.revocations_held = {}  # client_id -> Event a /revoke of that client waits on now (tests)
        self.id_token_padding = {}  # client_id -> bytes of a `groups` claim in its later ID tokens (tests)
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
            "logins": 0,
            "end_sessions": 0,
            "logout_requests": 0,
            "backchannel_sent": 0,
            "backchannel_failed": 0,
            "api_calls": 0,
            "api_refused": 0,
            "token_requests_failed": 0,
            "streams_started": 0,
            "streams_finished": 0,
            "streams_dropped": 0,
        }
        self.by_client = {
            "refreshes": {}, "reuse_detections": {}, "revocations": {}, "revocation_requests": {}, "tokens_issued": {},
        }
        self.poll_times = {}  # user_code -> [time of each poll]

    def count(self, name, by=1):
        with self.lock:
            self.counters[name] = self.counters.get(name, 0) + by

    def count_for(self, name, client_id, by=1):
        """A counter kept per client (`NAME_by_client` in /test/state)."""
        with self.lock:
            counts = self.by_client[name]
            counts[client_id] = counts.get(client_id, 0) + by

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

    def add_token(self, token):
        with self.lock:
            if token.family in self.revoked_families:
                _revoke(token)
            self.tokens.append(token)

    def revoke_family(self, family):
        with self.lock:
            self.revoked_families.add(family)
            for token in self.tokens:
                if token.family == family:
                    _revoke(token)

    def new_session(self, user, client_id):
        session = ProviderSession(secrets.token_urlsafe(16), user, client_id)
        with self.lock:
            self.sessions[session.sid] = session
            self.counters["logins"] += 1
        return session

    def end_sessions(self, sessions, by, revoke_tokens=True):
        """Ends the sessions still active among `sessions` (counting each in `end_sessions`) and, with
        `revoke_tokens`, revokes every token of each of them (their families too, so that a refresh in
        flight cannot outlive them). Returns the sids it ended."""
        ended = []
        with self.lock:
            for session in sessions:
                if session.active:
                    session.ended_at = time.time()
                    session.ended_by = by
                    self.counters["end_sessions"] += 1
                    ended.append(session.sid)
                if revoke_tokens:
                    for token in self.tokens:
                        if token.sid == session.sid:
                            self.revoked_families.add(token.family)
                    for token in self.tokens:
                        if token.family in self.revoked_families:
                            _revoke(token)
        return ended

    def state(self):
        """What the tests may see: counters, token states and sessions, never a token or code."""
        with self.lock:
            return {
                "counters": dict(self.counters),
                "refresh_tokens": {
                    state: sum(1 for t in self.tokens if t.refresh_state == state)
                    for state in ("active", "rotated", "revoked")
                },
                "access_tokens_revoked": sum(1 for t in self.tokens if t.access_revoked),
                "device_polls": {code: times[:] for code, times in self.poll_times.items()},
                "refreshes": self.counters["refresh_rotations"],
                "reuse_detections": self.counters["refresh_reuse_detected"],
                "revocations": self.counters["revocations"],
                "end_sessions": self.counters["end_sessions"],
                "backchannel_sent": self.counters["backchannel_sent"],
                "api_calls": self.counters["api_calls"],
                "streams_started": self.counters["streams_started"],
                "streams_finished": self.counters["streams_finished"],
                "streams_dropped": self.counters["streams_dropped"],
                "logins": self.counters["logins"],
                "refreshes_by_client": dict(self.by_client["refreshes"]),
                "reuse_detections_by_client": dict(self.by_client["reuse_detections"]),
                "revocations_by_client": dict(self.by_client["revocations"]),
                "revocation_requests_by_client": dict(self.by_client["revocation_requests"]),
                "tokens_issued_by_client": dict(self.by_client["tokens_issued"]),
                "sessions": [
                    {
                        "sid": s.sid,
                        "sub": s.user.sub,
                        "client_id": s.client_id,
                        "active": s.active,
                        "ended_by": s.ended_by,
                    }
                    for s in self.sessions.values()
                ],
                "backchannel_uris": dict(self.backchannel_uris),
                "access_token_lifetimes": dict(self.lifetimes),
                "token_endpoint": dict(self.token_endpoint),
            }


def _revoke(token):
    token.access_revoked = True
    if token.refresh_state == "active":
        token.refresh_state = "revoked"
