/// What a full check of the store found: counts, and the damaged items named by what can still be
/// known of them (their row, class and naming attributes); never a secret.
public struct StoreHealth: Sendable, Hashable {
    /// What kinds of damage the check found.
    public struct DamageKinds: Sendable, Hashable {
        /// Pages of the database file whose checksum fails (SQLite; 0 on PostgreSQL).
        public var pages = 0
        /// Item rows that do not authenticate, whose indexes disagree, or that cannot be read.
        public var rows = 0
        /// Whether the rows do not match the rows digest (a row removed, added or moved), or it is gone.
        public var rowsDigest = false
        /// Whether the store header is damaged (repaired by salvage, or beyond repair).
        public var header = false
        /// What is wrong with the header, in words, when it is known (SQLite: which of its two copies is
        /// damaged and that the other is sound, or that they differ); `nil` otherwise.
        public var headerProblem: String?
        /// How the store file is cut short (empty, or shorter than its header says); `nil` when it is
        /// whole in length (always on PostgreSQL).
        public var cutShort: FileShortfall?

        /// No damage of any kind.
        public init() {}

        /// Whether any kind of damage was found.
        public var any: Bool { pages > 0 || rows > 0 || rowsDigest || header || cutShort != nil }
    }

    /// Items that decrypted and whose indexes match their attributes.
    public let soundItems: Int
    /// Items that failed to decrypt or whose indexes disagree with their attributes.
    public let damagedItems: Int
    /// The backend's structural check and the rows-digest check: `"ok"` or the first complaint; `nil` when
    /// it could not run (the database could not open or read the store through).
    public let databaseCheck: String?
    /// The damaged items whose rows could still be read.
    public let damaged: [UnsoundItem]
    /// What kinds of damage were found.
    public let kinds: DamageKinds
    /// Whether the counts come from reading the store as salvage does, because the store itself could
    /// not be opened.
    public let countedBySalvage: Bool

    /// Creates a report.
    public init(
        soundItems: Int, damagedItems: Int, databaseCheck: String?, damaged: [UnsoundItem] = [],
        kinds: DamageKinds = DamageKinds(), countedBySalvage: Bool = false
    ) {
        self.soundItems = soundItems
        self.damagedItems = damagedItems
        self.databaseCheck = databaseCheck
        self.damaged = damaged
        self.kinds = kinds
        self.countedBySalvage = countedBySalvage
    }

    /// Whether every item is sound and the database found nothing wrong.
    public var isSound: Bool { damagedItems == 0 && databaseCheck == "ok" && !kinds.any && !countedBySalvage }
}
