import Domain
import Foundation

extension OAuthTokenResponseDTO {
    /// Token types an error may name (IANA's OAuth Access Token Types, and MAC's draft).
    static let knownTokenTypes = ["Bearer", "DPoP", "N_A", "PoP", "mac"]

    /// The tokens of this response, checked against RFC 6749 and 6750: a Bearer token type (any case),
    /// a present access token, and a sane lifetime.
    /// - Parameter requireRefreshToken: sign-in must return one; a refresh may keep the old one.
    func tokens(receivedAt now: Date, requireRefreshToken: Bool) throws(AuthenticationError) -> TokenRefresh {
        guard let accessToken, !accessToken.isEmpty else { throw .invalidResponse("no access_token in the reply") }
        guard let tokenType else { throw .invalidResponse("no token_type in the reply") }
        guard tokenType.lowercased() == "bearer" else {
            // Named only when it is a known token type: a server that put a token in this field (or a reply
            // mangled on the way) must not have it quoted in an error.
            let known = Self.knownTokenTypes.first { $0.lowercased() == tokenType.lowercased() }
            throw .invalidResponse(
                known.map { "token_type is '\($0)', not Bearer" } ?? "token_type is not Bearer (its value is not shown)")
        }
        let lifetime = try TokenLifetime.validated(expiresIn)
        let refresh: RefreshToken?
        if let refreshToken, !refreshToken.isEmpty {
            refresh = try RefreshToken(value: SecretBytes(utf8: refreshToken))
        } else if requireRefreshToken {
            throw .invalidResponse("no refresh_token in the reply")
        } else {
            refresh = nil
        }
        return TokenRefresh(
            accessToken: try AccessToken(
                value: SecretBytes(utf8: accessToken), issuedAt: now, expiresAt: lifetime.map { now + $0 }),
            refreshToken: refresh)
    }
}
