public import Data

/// What a full check of the store found: counts, and the damaged items named by what can still be
/// known of them (their row, class and naming attributes); never a secret.
public struct StoreHealth: Sendable, Hashable {
    /// One damaged item.
    public struct Damaged: Sendable, Hashable {
        /// The row that holds it.
        public let rowID: Int64
        /// Its class.
        public let itemClass: ItemClass
        /// What is wrong, in words: its attributes, its indexes or its data do not check.
        public let problem: String
        /// The attributes that name it, when they still decrypt.
        public let name: ItemAttributes?
    }

    /// Items that decrypted and whose indexes match their attributes.
    public let soundItems: Int
    /// Items that failed to decrypt or whose indexes disagree with their attributes.
    public let damagedItems: Int
    /// The backend's structural check and the rows-digest check: `"ok"` or the first complaint.
    public let databaseCheck: String
    /// The damaged items whose rows could still be read.
    public let damaged: [Damaged]

    /// Creates a report.
    public init(soundItems: Int, damagedItems: Int, databaseCheck: String, damaged: [Damaged] = []) {
        self.soundItems = soundItems
        self.damagedItems = damagedItems
        self.databaseCheck = databaseCheck
        self.damaged = damaged
    }

    /// Whether every item is sound and the database found nothing wrong.
    public var isSound: Bool { damagedItems == 0 && databaseCheck == "ok" }
}
