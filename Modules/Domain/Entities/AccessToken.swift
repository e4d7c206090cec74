public import Foundation

/// A bearer access token with the time it was received and, when the server said, when it expires.
///
/// The value is secret and never appears in text; it is never empty and holds only the characters
/// RFC 6750 allows in a bearer token, so it can never become `Bearer ` or inject a header line.
public struct AccessToken: Sendable {
    /// The token itself.
    public let value: SecretBytes
    /// When this client received it.
    public let issuedAt: Date
    /// When it stops working, if known; `nil` means only a 401 will tell.
    public let expiresAt: Date?

    /// Creates a token after checking its value.
    /// - Throws: ``AuthenticationError/invalidResponse(_:)`` when the value is empty or holds a
    ///   character a bearer token may not.
    public init(value: SecretBytes, issuedAt: Date, expiresAt: Date?) throws(AuthenticationError) {
        guard BearerTokenSyntax.isValid(value) else {
            throw .invalidResponse("the access token is empty or not a valid bearer token")
        }
        self.value = value
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// Seconds left at `now`, or `nil` when the expiry is unknown. Negative once expired.
    public func remainingLifetime(at now: Date) -> TimeInterval? {
        expiresAt.map { $0.timeIntervalSince(now) }
    }

    /// Whether the token may still be sent at `now`, keeping `skew` seconds in hand for clock
    /// differences and time in flight.
    ///
    /// The allowance is capped at a tenth of the token's lifetime, so a short-lived token (a minute, a
    /// few seconds) serves nine tenths of its life rather than being refreshed at every call or looking
    /// expired at birth. A token whose expiry is unknown is usable until a 401 says otherwise.
    public func isUsable(at now: Date, skew: TimeInterval) -> Bool {
        guard let expiresAt else { return true }
        let lifetime = expiresAt.timeIntervalSince(issuedAt)
        let allowance = min(max(skew, 0), max(lifetime, 0) / 10)
        return now.addingTimeInterval(allowance) < expiresAt
    }
}

extension AccessToken: CustomStringConvertible {
    /// The expiry only; the token is redacted.
    public var description: String {
        "AccessToken(redacted, expires: \(expiresAt.map { "\($0)" } ?? "unknown"))"
    }
}
