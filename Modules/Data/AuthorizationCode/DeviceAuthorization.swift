public import Domain
public import Foundation

/// A device authorization in progress (RFC 8628 §3.2): what to show the user, and what to poll with.
public struct DeviceAuthorization: Sendable {
    /// The secret the client polls with; never shown.
    public let deviceCode: SecretBytes
    /// The code the user types at the verification URI (shown: it is worthless without the user's login).
    public let userCode: String
    /// Where the user goes.
    public let verificationURI: String
    /// The same with the user code filled in, when the server gives one.
    public let verificationURIComplete: String?
    /// When the device code stops working.
    public let expiresAt: Date
    /// Seconds between polls, as the server asks (5 when it does not say).
    public let interval: TimeInterval
}
