/// A grant obtained through the browser or another device, to be exchanged for tokens at the token
/// endpoint: an authorization code with its PKCE verifier (RFC 6749 §4.1, RFC 7636), or a device
/// code once the user approved it (RFC 8628). Every part is secret except the redirect URI.
public enum AuthorizationGrant: Sendable {
    /// A code from the redirect, the PKCE verifier that proves this client asked for it, the redirect
    /// URI it was sent to, and the `nonce` the ID token must carry (when one was sent).
    case authorizationCode(code: SecretBytes, verifier: SecretBytes, redirectURI: String, nonce: SecretBytes?)
    /// A device code the user approved on another device.
    case deviceCode(SecretBytes)
}
