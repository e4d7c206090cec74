public import Foundation

/// A back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.4) whose claims hold:
/// `iss` the issuer, `aud` this client, `iat` within a bound of now, the back-channel-logout event,
/// no `nonce`, a `jti`, and `sid`, `sub` or both. Its signature is checked by the caller (the issuer's
/// key set) before its claims are read here. Pure: no I/O, time given.
public struct LogoutToken: Sendable, Equatable {
    /// The event every logout token names in `events`.
    public static let event = "http://schemas.openid.net/event/backchannel-logout"

    /// The user whose sessions end (`sub`), when named.
    public let subject: String?
    /// The issuer's session that ends (`sid`), when named.
    public let sessionID: String?
    /// The token's unique id, which must never be accepted twice.
    public let tokenID: String
    /// When the issuer made it.
    public let issuedAt: Date

    private struct Claims: Decodable {
        let iss: String
        let aud: AudienceDTO
        let iat: Double
        let exp: Double?
        let jti: String
        let sub: IdentifierDTO?
        let sid: String?
        let nonce: String?
        let events: Events
    }

    /// `events`: a JSON object whose back-channel logout member, when there, is itself an object.
    private struct Events: Decodable {
        let namesLogout: Bool

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            namesLogout = (try? container.decode(Object.self, forKey: Key(stringValue: LogoutToken.event))) != nil
        }

        /// Any JSON object (decoding fails for any other value).
        private struct Object: Decodable {
            init(from decoder: any Decoder) throws {
                _ = try decoder.container(keyedBy: Key.self)
            }
        }

        private struct Key: CodingKey {
            let stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
    }

    /// The token whose verified `payload` holds every rule for `issuer` and `clientID` at `now`; `iat` may
    /// be at most `maximumAge` seconds old (and that much in the future, for clock differences).
    /// - Throws: ``IDTokenError/malformed(_:)`` or ``IDTokenError/claimRejected(_:)`` naming the rule.
    public init(payload: Data, issuer: String, clientID: String, now: Date, maximumAge: TimeInterval = 300)
        throws(IDTokenError)
    {
        let claims: Claims
        do {
            claims = try JSONDecoder().decode(Claims.self, from: payload)
        } catch {
            throw .malformed("the logout token's claims are not the expected JSON (iss, aud, iat, jti, events)")
        }
        guard claims.iss == issuer else { throw .claimRejected("the logout token's `iss` is not the issuer") }
        guard claims.aud.values.contains(clientID) else { throw .claimRejected("the logout token's `aud` does not name this client") }
        guard claims.iat.isFinite, abs(now.timeIntervalSince1970 - claims.iat) <= maximumAge else {
            throw .claimRejected("the logout token's `iat` is not within \(Int(maximumAge)) s of now")
        }
        if let exp = claims.exp, !(exp.isFinite && exp > now.timeIntervalSince1970) {
            throw .claimRejected("the logout token has expired (`exp`)")
        }
        guard claims.events.namesLogout else { throw .claimRejected("the logout token names no back-channel logout event") }
        guard claims.nonce == nil else { throw .claimRejected("a logout token must not carry a `nonce`") }
        guard !claims.jti.isEmpty, claims.jti.utf8.count <= 255 else { throw .claimRejected("the logout token's `jti` is empty or too long") }
        let subject = claims.sub.map(\.text).flatMap { $0.isEmpty ? nil : $0 }
        let sessionID = claims.sid.flatMap { $0.isEmpty ? nil : $0 }
        guard subject != nil || sessionID != nil else { throw .claimRejected("the logout token names neither `sid` nor `sub`") }
        self.subject = subject
        self.sessionID = sessionID
        tokenID = claims.jti
        issuedAt = Date(timeIntervalSince1970: claims.iat)
    }
}
