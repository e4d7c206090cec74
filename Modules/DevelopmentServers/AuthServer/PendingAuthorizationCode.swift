import Foundation

/// An authorization code the embedded server issued and has not yet seen exchanged: what the token
/// request must repeat (client, redirect URI, a verifier matching the S256 challenge) and who approved.
struct PendingAuthorizationCode: Sendable {
    let clientID: String
    let redirectURI: String
    let codeChallenge: String
    let nonce: String?
    let subject: String
    let name: String
    let expiresAt: Date
}
