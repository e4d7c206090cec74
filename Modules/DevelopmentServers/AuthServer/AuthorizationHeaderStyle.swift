/// How a header-style sign-in or refresh writes the access token in its `Authorization` response header.
public enum AuthorizationHeaderStyle: Sendable, Equatable {
    /// `Authorization: Bearer <token>`.
    case bearer
    /// `Authorization: <token>`, with no scheme; `/api/me` then also accepts the bare token back.
    case bare
}
