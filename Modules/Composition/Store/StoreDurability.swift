/// How durable each commit to the store is.
public enum StoreDurability: Sendable, Hashable {
    /// Every commit is on disk before it returns. The default.
    case full
    /// A commit may be lost on power failure (never on a crash) but the file is never corrupted.
    case normal
}
