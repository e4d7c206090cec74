/// What an atomic add-or-update did.
public enum AddOrUpdateOutcome: Sendable, Hashable {
    /// No item had the unique key; one was added.
    case added
    /// The item with that unique key was updated.
    case updated
}
