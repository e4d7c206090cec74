import StoreCore

/// What salvage read from a damaged store, ready to be written into a new one: counts, and the lost
/// items named by what is still known of them. Holds the recovered secrets (in `SecretBytes`) until
/// written; never shows one.
public struct SalvagedStore: Sendable {
    let result: SalvageResult

    /// Items recovered (each authenticated, one version of each).
    public var recovered: Int { result.items.count }
    /// Items seen but not recovered, plus those the rows digest counts that left no trace.
    public var lostCount: Int { result.lostCount }
    /// Items the digest counts that left no trace.
    public var unaccounted: Int { result.unaccounted }
    /// How many items the store's rows digest says it held, when one was found.
    public var expected: Int? { result.expected }
    /// Whether the recovered rows are exactly those the digest describes.
    public var matchesDigest: Bool { result.matchesDigest }
    /// Whether every item came back.
    public var isComplete: Bool { result.isComplete }
    /// Candidate copies of item rows read, and older or duplicate copies set aside.
    public var candidates: Int { result.candidates }
    /// Copies set aside because a newer authentic copy of the same item was kept.
    public var superseded: Int { result.superseded }
    /// Pages (SQLite) or rows (PostgreSQL) read, and how many of them failed their own check.
    public var partsRead: Int { result.partsRead }
    /// Pages or rows that failed their own check (a page checksum, a row the server could not return).
    public var damagedParts: Int { result.damagedParts }

    /// Whether the store header was damaged (repaired by authentication, or an earlier copy failed).
    public var headerDamaged: Bool { result.headerDamaged }

    /// The lost items, in row order.
    public var lost: [UnsoundItem] { result.lost.map(UnsoundItem.init) }
}
