/// The issuer's word that sessions are over (an OpenID Connect back-channel logout): its session id
/// (`sid`), its user (`sub`), or both.
public struct IssuerLogout: Sendable, Equatable {
    /// The issuer's session that ended, when named.
    public let sessionID: String?
    /// The user whose sessions ended, when named.
    public let subject: String?

    /// A logout naming a session, a user or both; `nil` when it names neither.
    public init?(sessionID: String?, subject: String?) {
        guard sessionID != nil || subject != nil else { return nil }
        self.sessionID = sessionID
        self.subject = subject
    }

    /// Whether it names `session`: by the issuer's session id when it gives one (and then its user too,
    /// when it gives both), else by the user. A session signed in without an issuer session id is named
    /// only by a logout that names its user alone.
    public func names(_ session: Session) -> Bool {
        if let sessionID {
            guard session.identity?.sessionID == sessionID else { return false }
            return subject.map { $0 == session.user?.id } ?? true
        }
        return subject != nil && subject == session.user?.id
    }
}
