public import Foundation

/// Checks an ID token (OpenID Connect Core §3.1.3.7) against a key set: a compact JWS whose `alg` is
/// on the allow-list (RS256, ES256; never `none` or HMAC), signed by a key of the set that fits the
/// header, with `iss`, `aud`, `azp`, `exp`, `iat` and `nonce` as expected. Pure: no I/O, time given.
public struct IDTokenValidator: Sendable {
    /// The largest ID token accepted, in bytes.
    public static let maximumBytes = 16 * 1024
    private let verifier: any JWSSignatureVerifier

    /// Creates a validator that checks signatures through `verifier`.
    public init(verifier: any JWSSignatureVerifier) {
        self.verifier = verifier
    }

    /// Whether `keys` holds a key that fits `token`'s header (its `kid`, when it names one, and `alg`).
    /// - Throws: ``IDTokenError/malformed(_:)`` or ``IDTokenError/algorithmNotAllowed(_:)``.
    public func hasKey(for token: String, in keys: [JSONWebKey]) throws(IDTokenError) -> Bool {
        let jws = try CompactJWS(token)
        return !jws.candidates(in: keys).isEmpty
    }

    /// The claims of `token` once every rule holds.
    /// - Throws: ``IDTokenError`` naming the first rule broken.
    public func validate(_ token: String, keys: [JSONWebKey], expecting expected: IDTokenExpectations, now: Date)
        throws(IDTokenError) -> IDTokenClaims
    {
        try checkClaims(try verifiedPayload(of: token, keys: keys), expected, now)
    }

    /// The payload of `token` once its header is allowed and its signature verifies under a key of
    /// `keys` that fits the header; its claims are not looked at.
    /// - Throws: ``IDTokenError`` (`malformed`, `algorithmNotAllowed`, `unknownKey`, `badSignature`).
    public func verifiedPayload(of token: String, keys: [JSONWebKey]) throws(IDTokenError) -> Data {
        let jws = try CompactJWS(token)
        let candidates = jws.candidates(in: keys)
        guard !candidates.isEmpty else { throw .unknownKey }
        var verified = false
        for key in candidates where !verified {
            do {
                verified = try verifier.verify(
                    signature: jws.signature, of: jws.signingInput, algorithm: jws.algorithm, key: key.material)
            } catch {
                // A key that cannot be used (or a signature of the wrong size for it) is not a match.
                continue
            }
        }
        guard verified else { throw .badSignature }
        return jws.payload
    }

    private func checkClaims(_ payload: Data, _ expected: IDTokenExpectations, _ now: Date) throws(IDTokenError)
        -> IDTokenClaims
    {
        let claims: IDTokenClaimsDTO
        do {
            claims = try JSONDecoder().decode(IDTokenClaimsDTO.self, from: payload)
        } catch {
            throw .malformed("the claims are not the expected JSON (iss, sub, aud, exp, iat)")
        }
        guard claims.iss == expected.issuer else { throw .claimRejected("`iss` is not the issuer signed in with") }
        guard claims.aud.values.contains(expected.clientID) else {
            throw .claimRejected("`aud` does not name this client")
        }
        if claims.aud.values.count > 1 || claims.azp != nil {
            guard claims.azp == expected.clientID else {
                throw .claimRejected("`azp` is not this client")
            }
        }
        guard claims.exp.isFinite, claims.iat.isFinite, claims.exp > claims.iat else {
            throw .claimRejected("`exp` is not after `iat`")
        }
        let issuedAt = Date(timeIntervalSince1970: claims.iat)
        let expiresAt = Date(timeIntervalSince1970: claims.exp)
        // The skew allowance past `exp` is capped at half the token's lifetime.
        let allowance = min(max(expected.clockSkew, 0), expiresAt.timeIntervalSince(issuedAt) / 2)
        guard now < expiresAt.addingTimeInterval(allowance) else { throw .claimRejected("it has expired (`exp`)") }
        guard issuedAt <= now.addingTimeInterval(allowance) else {
            throw .claimRejected("it was issued in the future (`iat`)")
        }
        if let nonce = expected.nonce {
            guard let sent = claims.nonce, SecretText.equal(sent, nonce) else {
                throw .claimRejected("`nonce` does not match the one sent")
            }
        }
        let subject = claims.sub.text
        guard !subject.isEmpty else { throw .claimRejected("`sub` is empty") }
        // A session id is an opaque string the issuer names its session by: kept only when it is plain
        // printable ASCII of a sane length, so that it can be compared with a logout token's and shown.
        let sessionID = claims.sid.flatMap { sid in
            sid.utf8.count <= 255 && !sid.isEmpty && sid.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) ? sid : nil
        }
        return IDTokenClaims(
            subject: subject, name: claims.name ?? claims.preferredUsername ?? "", expiresAt: expiresAt,
            issuedAt: issuedAt, sessionID: sessionID)
    }
}
