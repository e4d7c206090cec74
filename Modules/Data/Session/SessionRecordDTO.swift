/// What the session repository stores beside the two tokens: who signed in, how, and the token
/// times. JSON, encrypted like every item's data.
struct SessionRecordDTO: Codable, Equatable {
    /// The record format.
    var version: Int
    /// `sub` or `userId`; absent for a legacy import.
    var userID: String?
    /// `name` or `nickname`.
    var userName: String?
    /// `password`, `identityProvider`, `legacyImport`, `authorizationCode` or `deviceCode`.
    var method: String
    /// The provider for `identityProvider`.
    var provider: String?
    /// When the access token was received, in milliseconds since 1970.
    var accessIssuedAt: Int64
    /// When the access token expires, if known.
    var accessExpiresAt: Int64?
    /// When the refresh token expires, if known.
    var refreshExpiresAt: Int64?
    /// The server's base URL at sign-in; absent in records written before it was kept.
    var server: String? = nil
    /// The contract at sign-in (`oauth`, `header`); absent in older records.
    var contract: String? = nil
    /// The client id at sign-in; absent in older records.
    var clientID: String? = nil
    /// For a session signed in through discovery: the issuer, the client, and its endpoints. Absent in
    /// records written before, and for the other methods.
    var issuer: String? = nil
    var issuerClientID: String? = nil
    var tokenEndpoint: String? = nil
    var revocationEndpoint: String? = nil
    var userinfoEndpoint: String? = nil
    /// How the client secret kept beside the record (never in it) is sent: `client_secret_basic` or
    /// `client_secret_post`. Absent for a public client and in older records.
    var clientAuthMethod: String? = nil
    /// Whether a client secret is kept beside the record; absent (no) in older records.
    var clientSecretKept: Bool? = nil
    /// Whether the issuer's ID token is kept beside the record (never in it); absent (no) in older
    /// records and for sessions that came without one.
    var idTokenKept: Bool? = nil
    /// The issuer's session id (`sid`) from the ID token, when it sent one.
    var providerSessionID: String? = nil
}
