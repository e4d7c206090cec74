/// What one authorized call returned: its value, or a 401 that says the access token was refused.
public enum AuthorizedOutcome<Value: Sendable>: Sendable {
    /// The call succeeded.
    case success(Value)
    /// The server answered 401: the access token is missing, expired or revoked.
    case unauthorized
}
