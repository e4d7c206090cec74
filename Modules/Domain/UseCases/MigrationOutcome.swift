/// What a legacy-token migration did.
public enum MigrationOutcome: Sendable, Equatable {
    /// There was no legacy file.
    case nothingToMigrate
    /// The tokens were stored securely and the plaintext file destroyed.
    case imported
    /// A session was already stored (this or a newer one): the plaintext file was destroyed unused.
    case alreadyMigrated
}
