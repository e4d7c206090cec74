/// Where a header-style sign-in or refresh puts the new refresh token.
public enum RefreshTokenPlacement: Sendable, Equatable {
    /// In the `Authorization-refresh` response header.
    case header
    /// In the JSON body, as `refreshToken`.
    case body
}
