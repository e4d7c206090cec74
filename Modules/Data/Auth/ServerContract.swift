/// The two shapes of auth server Hardtack speaks, because real backends come in both.
public enum ServerContract: String, Sendable, CaseIterable {
    /// OAuth 2.0 (RFC 6749): `POST /oauth/token`, form-encoded, tokens in a JSON body.
    case oauth
    /// The seeds' backends: `POST /auth/signin`, tokens in `Authorization` and `Authorization-refresh`
    /// headers (the refresh token possibly in the JSON body instead).
    case header
}
