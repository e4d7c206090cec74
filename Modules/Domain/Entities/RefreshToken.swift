public import Foundation

/// A refresh token, and when it expires if the server said.
public struct RefreshToken: Sendable {
    /// The token itself.
    public let value: SecretBytes
    /// When it stops working, if known.
    public let expiresAt: Date?

    /// Creates a token after checking its value.
    /// - Throws: ``AuthenticationError/invalidResponse(_:)`` when the value is empty or malformed.
    public init(value: SecretBytes, expiresAt: Date? = nil) throws(AuthenticationError) {
        guard BearerTokenSyntax.isValid(value) else {
            throw .invalidResponse("the refresh token is empty or malformed")
        }
        self.value = value
        self.expiresAt = expiresAt
    }

    /// Whether the token is known to have expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    /// Whether two refresh tokens are the same token (compared in constant time).
    public func isSameToken(as other: RefreshToken) -> Bool {
        value.constantTimeEquals(other.value)
    }
}

extension RefreshToken: CustomStringConvertible {
    /// The expiry only; the token is redacted.
    public var description: String {
        "RefreshToken(redacted, expires: \(expiresAt.map { "\($0)" } ?? "unknown"))"
    }
}
