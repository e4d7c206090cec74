/// The port to a store of many sessions, each under a key of its own (the gateway's browser sessions):
/// what is stored, read without the tokens' own keys, and each one's repository.
public protocol SessionCatalog: Sendable {
    /// Every stored session that can be read, by key (its tokens may stay sealed: only who signed in
    /// and the issuer's session id are needed).
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot be read.
    func sessions() async throws(AuthenticationError) -> [(key: String, session: Session)]

    /// The repository of the session under `key`.
    func repository(for key: String) -> any SessionRepository

    /// The key of every stored session, readable or not (one this version cannot read is still there).
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot be read.
    func keys() async throws(AuthenticationError) -> Set<String>
}
