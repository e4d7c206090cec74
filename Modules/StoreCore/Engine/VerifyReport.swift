/// What ``SQLiteSecureItemStore/verify()`` found: counts only, never a secret or attribute value.
public struct VerifyReport: Sendable, Hashable {
    /// Items that decrypted and whose indexes match their attributes.
    public let soundItems: Int
    /// Items that failed to decrypt or whose indexes disagree with their attributes.
    public let damagedItems: Int
    /// SQLite's own structural check: `"ok"` or its first complaint.
    public let databaseCheck: String

    /// Whether everything is sound.
    /// A report of `soundItems` and `damagedItems` with the backend's structural check.
    package init(soundItems: Int, damagedItems: Int, databaseCheck: String) {
        self.soundItems = soundItems
        self.damagedItems = damagedItems
        self.databaseCheck = databaseCheck
    }

    public var isSound: Bool { damagedItems == 0 && databaseCheck == "ok" }
}
