/// What an export's or import's progress counts: items read (and decrypted) from the store, items
/// written to the export file, or items added to (or updated in) the store.
public enum ExportStep: Sendable {
    /// Items read from the store and decrypted, before the file is written.
    case read
    /// Items sealed into the export file.
    case written
    /// Items added to or updated in the store by an import.
    case imported
}
