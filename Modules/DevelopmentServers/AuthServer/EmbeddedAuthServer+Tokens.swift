import Foundation

extension EmbeddedAuthServer {
    /// Starts a new family for a user who just signed in, and issues its first token pair.
    func startFamily(subject: String, name: String, clientID: String?) -> IssuedTokens {
        issue(
            subject: subject, name: name, family: AuthCrypto.randomToken(byteCount: 16), generation: 0,
            clientID: clientID)
    }

    /// Signs an access token and stores the digest of a new refresh token in `family`.
    private func issue(subject: String, name: String, family: String, generation: Int, clientID: String?)
        -> IssuedTokens
    {
        let now = clock.now
        let issuedAt = Int(now.timeIntervalSince1970.rounded(.down))
        let seconds = generation > 0 ? options.refreshedAccessTokenLifetime : nil
        let lifetime = Int((seconds ?? options.accessTokenLifetime).rounded(.down))
        let claims = AccessTokenClaims(
            sub: subject, name: name, iat: issuedAt, exp: issuedAt + lifetime,
            jti: AuthCrypto.randomToken(byteCount: 16),
            fam: family)
        let refreshToken = AuthCrypto.randomToken()
        refreshTokens[AuthCrypto.digest(refreshToken)] = RefreshTokenRecord(
            family: family, generation: generation, subject: subject, name: name, clientID: clientID,
            expiresAt: now.addingTimeInterval(options.refreshTokenLifetime), used: false)
        return IssuedTokens(
            accessToken: JSONWebToken.sign(claims, key: signingKey), refreshToken: refreshToken, expiresIn: lifetime,
            subject: subject, name: name)
    }

    /// Exchanges a refresh token for a new pair, marking it used. A used token revokes its family and
    /// counts a reuse detection. `clientID` is checked when given (the OAuth contract), as RFC 6749 §6
    /// requires that a token be redeemed only by the client it was issued to.
    /// - Returns: the new pair, or the reason the token was refused (for `error_description`).
    func rotate(_ presented: String, clientID: String?) -> Result<IssuedTokens, Refusal> {
        let key = AuthCrypto.digest(presented)
        guard var record = refreshTokens[key] else { return .failure(Refusal("the refresh token is not valid")) }
        guard !revokedFamilies.contains(record.family) else {
            return .failure(Refusal("the refresh token was revoked"))
        }
        if let clientID, record.clientID != clientID {
            return .failure(Refusal("the refresh token was issued to another client"))
        }
        guard !record.used else {
            // The token was stolen or replayed: whichever party holds the newer token is unknown, so
            // the whole session dies.
            revokedFamilies.insert(record.family)
            counters.reuseDetections += 1
            return .failure(Refusal("the refresh token was already used; the session has been revoked"))
        }
        guard clock.now < record.expiresAt else { return .failure(Refusal("the refresh token has expired")) }
        record.used = true
        refreshTokens[key] = record
        counters.refreshes += 1
        return .success(
            issue(
                subject: record.subject, name: record.name, family: record.family, generation: record.generation + 1,
                clientID: record.clientID))
    }

    /// Revokes the family of `token`, a refresh token or a valid access token; unknown tokens are
    /// ignored, as RFC 7009 §2.2 says. Returns whether a live family was revoked.
    func revokeFamily(of token: String) -> Bool {
        let family: String
        if let record = refreshTokens[AuthCrypto.digest(token)] {
            family = record.family
        } else if case .success(let claims) = JSONWebToken.verify(token, key: signingKey) {
            family = claims.fam
        } else {
            return false
        }
        return revokedFamilies.insert(family).inserted
    }

    /// The claims of a valid access token, or why it is not valid (for `error_description`).
    func validate(accessToken token: String) -> Result<AccessTokenClaims, Refusal> {
        switch JSONWebToken.verify(token, key: signingKey) {
        case .failure(.malformed): return .failure(Refusal("the access token is malformed"))
        case .failure(.unsupportedAlgorithm): return .failure(Refusal("the access token's algorithm is not HS256"))
        case .failure(.badSignature): return .failure(Refusal("the access token's signature is not valid"))
        case .success(let claims):
            guard Double(claims.exp) > clock.now.timeIntervalSince1970 else {
                return .failure(Refusal("the access token has expired"))
            }
            guard !revokedFamilies.contains(claims.fam) else {
                return .failure(Refusal("the access token was revoked"))
            }
            return .success(claims)
        }
    }

    /// The user whose password is `password`, compared in constant time. An unknown name still costs
    /// one comparison, so timing does not tell which names exist.
    func authenticate(username: String, password: String) -> AuthServerUser? {
        guard let user = options.users.first(where: { $0.username == username }) else {
            _ = AuthCrypto.equalInConstantTime(password, "")
            return nil
        }
        return AuthCrypto.equalInConstantTime(password, user.password) ? user : nil
    }
}
