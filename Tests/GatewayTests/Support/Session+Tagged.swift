import Domain
import Foundation

extension Session {
    /// Alice's session, each token named by `tag` (`access-TAG`, `refresh-TAG`, `id-token-TAG`), issued at
    /// `date` with an access token living 5 minutes.
    static func tagged(_ tag: String, at date: Date) throws -> Session {
        Session(
            accessToken: try AccessToken(value: SecretBytes(utf8: "access-\(tag)"), issuedAt: date, expiresAt: date + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh-\(tag)"), expiresAt: nil),
            user: User(id: "alice", name: "Alice"), method: .authorizationCode,
            identity: SignInIdentity(idToken: SecretBytes(utf8: "id-token-\(tag)"), sessionID: "idp-1"))
    }
}
