/// The Argon2id work factor used when a passphrase protects a new store or replaces the key.
public enum PassphraseCost: Sendable, Hashable {
    /// libsodium's MODERATE (256 MiB, 3 passes): the default for every real store.
    case moderate
    /// libsodium's INTERACTIVE (64 MiB, 2 passes): for tests only, never for a store that matters.
    case interactive

    /// The name of the variable that may lower the cost for tests.
    public static let environmentVariable = "HARDTACK_ARGON2_COST"

    /// The cost the environment asks for: MODERATE unless `HARDTACK_ARGON2_COST` says
    /// `interactive`, or `nil` when the variable holds anything else.
    public static func from(environment: [String: String]) -> PassphraseCost? {
        switch environment[environmentVariable] {
        case nil, "", "moderate": .moderate
        case "interactive": .interactive
        default: nil
        }
    }
}
