/// What a store's full check found: counts, and the damaged items named by what can still be known
/// of them; never a secret.
public struct VerifyReport: Sendable, Hashable {
    /// Items that decrypted and whose indexes match their attributes.
    public let soundItems: Int
    /// Items that failed to decrypt or whose indexes disagree with their attributes.
    public let damagedItems: Int
    /// The backend's own structural check, and the rows-digest check: `"ok"` or the first complaint.
    public let databaseCheck: String
    /// The damaged items whose rows could still be read (rows that cannot be read at all, an unknown
    /// class or a malformed index cell, are only counted in ``damagedItems``).
    public let damaged: [DamagedItem]
    /// Whether the rows match the rows digest (a store without one counts as matching).
    public let digestMatches: Bool

    /// A report of `soundItems` and `damagedItems` with the backend's structural check.
    package init(
        soundItems: Int, damagedItems: Int, databaseCheck: String, damaged: [DamagedItem] = [], digestMatches: Bool = true
    ) {
        self.soundItems = soundItems
        self.damagedItems = damagedItems
        self.databaseCheck = databaseCheck
        self.damaged = damaged
        self.digestMatches = digestMatches
    }

    /// Whether everything is sound.
    public var isSound: Bool { damagedItems == 0 && databaseCheck == "ok" }
}
