"""Logout: ID token hints (OpenID Connect RP-Initiated Logout 1.0) and logout tokens (OpenID Connect
Back-Channel Logout 1.0), made and sent by hand so that the tests can also have wrong ones: another
signer, another `alg` (`none` and `HS256` included), a missing claim, an old `iat`.
"""

import base64
import hashlib
import hmac
import json
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from joserfc import jwt
from joserfc.errors import JoseError

BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout"
LOGOUT_TOKEN_LIFETIME = 120
SEND_TIMEOUT = 10
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "HS256", "none")

_HASHES = {"256": hashes.SHA256, "384": hashes.SHA384, "512": hashes.SHA512}


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sign(header, claims, alg, key):
    """A compact JWS of `claims`; RS*/PS* with `key` (a joserfc RSAKey), HS256 with `key`'s public
    key in PEM as the HMAC secret (the algorithm-confusion attack), `none` unsigned."""
    header = dict(header, alg=alg)
    signing_input = "{}.{}".format(
        _b64(json.dumps(header, separators=(",", ":")).encode()),
        _b64(json.dumps(claims, separators=(",", ":")).encode()),
    ).encode("ascii")
    if alg == "none":
        signature = b""
    elif alg == "HS256":
        secret = key.as_pem(private=False)
        signature = hmac.new(secret, signing_input, hashlib.sha256).digest()
    elif alg[:2] in ("RS", "PS") and alg[2:] in _HASHES:
        digest = _HASHES[alg[2:]]()
        if alg.startswith("RS"):
            scheme = padding.PKCS1v15()
        else:
            scheme = padding.PSS(mgf=padding.MGF1(digest), salt_length=digest.digest_size)
        signature = key.private_key.sign(signing_input, scheme, digest)
    else:
        raise ValueError("unsupported alg " + alg)
    return signing_input.decode("ascii") + "." + _b64(signature)


def logout_token_claims(issuer, audience, sub=None, sid=None, iat_offset=0, jti=None, events=True, nonce=None):
    """The claims of a logout token (§2.4); a claim given as "" is left out."""
    iat = int(time.time()) + int(iat_offset)
    claims = {"iss": issuer, "aud": audience, "iat": iat, "exp": iat + LOGOUT_TOKEN_LIFETIME}
    claims["jti"] = secrets.token_urlsafe(16) if jti is None else jti
    if events:
        claims["events"] = {BACKCHANNEL_EVENT: {}}
    if sub:
        claims["sub"] = sub
    if sid:
        claims["sid"] = sid
    if nonce is not None:
        claims["nonce"] = nonce
    return {name: value for name, value in claims.items() if value != ""}


def logout_token(claims, key, alg="RS256", typ="logout+jwt"):
    header = {"kid": key.kid}
    if typ:
        header["typ"] = typ
    return sign(header, claims, alg, key)


def send(uri, token):
    """POSTs `logout_token=TOKEN` to `uri` (§2.5); answers the HTTP status, or None and why."""
    body = urllib.parse.urlencode({"logout_token": token}).encode("ascii")
    request = urllib.request.Request(
        uri, data=body, method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded", "Cache-Control": "no-store"},
    )
    try:
        with urllib.request.urlopen(request, timeout=SEND_TIMEOUT) as response:
            response.read()
            return response.status, None
    except urllib.error.HTTPError as error:
        error.read()
        return error.code, None
    except (urllib.error.URLError, OSError, ValueError) as error:
        return None, str(getattr(error, "reason", error))


def id_token_hint_claims(hint, key, issuer):
    """The claims of an ID token this provider signed (expired or not, §2: a hint may be old), else
    None."""
    try:
        token = jwt.decode(hint, key, algorithms=["RS256"])
    except (JoseError, ValueError, TypeError):
        return None
    claims = dict(token.claims)
    if token.header.get("kid") != key.kid or claims.get("iss") != issuer or not claims.get("sub"):
        return None
    return claims
