/// How many items a find returns (`kSecMatchLimit`).
public enum MatchLimit: Sendable, Hashable {
    /// The first match only.
    case one
    /// Every match.
    case all
}
