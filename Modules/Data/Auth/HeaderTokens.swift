import Domain
import Foundation

/// The tokens of a header-style reply: the access token from `Authorization` (`Bearer <t>` or bare),
/// the refresh token from `Authorization-refresh` or the body's `refreshToken`.
struct HeaderTokens {
    let accessToken: AccessToken
    let refreshToken: RefreshToken?

    init(response: HTTPResponse, body: HeaderSignInBodyDTO?, receivedAt now: Date) throws(AuthenticationError) {
        guard let access = BearerAuthorization.token(fromHeader: response.headers["Authorization"]) else {
            throw .invalidResponse("no access token in the Authorization header")
        }
        accessToken = try AccessToken(value: SecretBytes(utf8: access), issuedAt: now, expiresAt: nil)
        let refresh =
            BearerAuthorization.token(fromHeader: response.headers["Authorization-refresh"]) ?? body?.refreshToken
        refreshToken = try refresh.flatMap { $0.isEmpty ? nil : $0 }.map { value throws(AuthenticationError) in
            try RefreshToken(value: SecretBytes(utf8: value))
        }
    }

    /// The tokens as a refresh result.
    var refresh: TokenRefresh { TokenRefresh(accessToken: accessToken, refreshToken: refreshToken) }
}
