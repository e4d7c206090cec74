/// What a full check of the store found: counts only, never a secret or an attribute value.
public struct StoreHealth: Sendable, Hashable {
    /// Items that decrypted and whose indexes match their attributes.
    public let soundItems: Int
    /// Items that failed to decrypt or whose indexes disagree with their attributes.
    public let damagedItems: Int
    /// SQLite's structural check: `"ok"` or its first complaint.
    public let databaseCheck: String

    /// Creates a report.
    public init(soundItems: Int, damagedItems: Int, databaseCheck: String) {
        self.soundItems = soundItems
        self.damagedItems = damagedItems
        self.databaseCheck = databaseCheck
    }

    /// Whether every item is sound and SQLite found nothing wrong.
    public var isSound: Bool { damagedItems == 0 && databaseCheck == "ok" }
}
