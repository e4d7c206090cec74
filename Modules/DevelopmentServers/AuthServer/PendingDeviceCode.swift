import Foundation

/// A device authorization the embedded server issued (RFC 8628): its user code, until when it works,
/// when the client last polled, and the user's decision once made.
struct PendingDeviceCode: Sendable {
    enum Decision: Sendable {
        case approved(subject: String, name: String)
        case denied
    }

    let clientID: String
    let userCode: String
    let expiresAt: Date
    /// Whether `openid` was in the scope asked for: the tokens then come with an ID token.
    var openID = false
    var lastPoll: Date?
    var decision: Decision?
}
