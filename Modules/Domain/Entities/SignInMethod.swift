/// How the user signed in, remembered with the session (the seeds' "social login type").
public enum SignInMethod: Sendable, Hashable {
    /// Username and password.
    case password
    /// A third-party identity token (such as Sign in with Apple) exchanged with the app's own backend.
    case identityProvider(String)
    /// The authorization code grant with PKCE, through the browser and a loopback redirect.
    case authorizationCode
    /// The device authorization grant (RFC 8628), approved on another device.
    case deviceCode
    /// Tokens imported from an older version's plaintext preferences file.
    case legacyImport
}
