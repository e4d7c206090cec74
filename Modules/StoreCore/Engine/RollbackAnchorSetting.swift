/// Where an SQLite store of format 4 keeps its rollback anchor (``RollbackAnchorFile``), and whether an
/// open may make one that is missing.
public struct RollbackAnchorSetting: Sendable, Equatable {
    /// The anchor's file: somewhere the store's file is not (beside the key file, another volume), so
    /// that whoever puts an older copy of the store back cannot put the anchor back with it.
    public var path: String
    /// Whether an open makes the anchor when there is none, trusting the store as it is then. A new
    /// store gets its anchor either way; an existing store without one is otherwise refused, since a
    /// removed anchor would let an older copy of the store in.
    public var createIfMissing: Bool

    /// An anchor at `path`, made when missing only if `createIfMissing`.
    public init(path: String, createIfMissing: Bool = false) {
        self.path = path
        self.createIfMissing = createIfMissing
    }
}
