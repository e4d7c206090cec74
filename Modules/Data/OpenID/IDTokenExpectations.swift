public import Foundation

/// What an ID token must say to be accepted for one sign-in.
public struct IDTokenExpectations: Sendable {
    /// The issuer, exactly as discovery confirmed it.
    public let issuer: String
    /// This client's id, which `aud` must hold (and `azp` equal when there are several audiences).
    public let clientID: String
    /// The `nonce` sent with the authorization request, or `nil` when none was sent.
    public let nonce: String?
    /// The clock-skew allowance, in seconds, capped at half the token's lifetime.
    public let clockSkew: TimeInterval

    /// Creates the expectations.
    public init(issuer: String, clientID: String, nonce: String?, clockSkew: TimeInterval = 30) {
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
        self.clockSkew = clockSkew
    }
}
