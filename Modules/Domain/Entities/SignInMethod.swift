/// How the user signed in, remembered with the session (the seeds' "social login type").
public enum SignInMethod: Sendable, Hashable {
    /// Username and password.
    case password
    /// A third-party identity token (such as Sign in with Apple) exchanged with the app's own backend.
    case identityProvider(String)
    /// Tokens imported from an older version's plaintext preferences file.
    case legacyImport
}
