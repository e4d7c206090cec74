/// What is wrong with an item that a check found damaged or a salvage could not bring back.
public enum ItemDamage: String, Sendable, Hashable {
    /// Its row's cells could not be read (an unknown class, a cell of the wrong size or type); only
    /// salvage names such a row, a check only counts it.
    case unreadableRow
    /// Its attributes do not decrypt or authenticate with the store's key (changed, moved from another
    /// row, or the indexes they are bound to were changed).
    case attributes
    /// Its attributes decrypt but its index cells disagree with them.
    case indexes
    /// Its attributes are sound but its secret does not decrypt.
    case data
}
