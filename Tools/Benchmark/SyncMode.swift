import StoreCore

/// SQLite's `synchronous` setting a workload runs under.
enum SyncMode: String, CaseIterable {
    /// `synchronous=FULL`: one WAL fsync per commit (Hardtack's default).
    case full
    /// `synchronous=NORMAL`: no fsync on commit in WAL mode.
    case normal

    /// The store option that selects this mode.
    var durability: StoreOptions.Durability { self == .full ? .full : .normal }

    /// The pragma's value.
    var pragmaValue: String { self == .full ? "FULL" : "NORMAL" }
}
