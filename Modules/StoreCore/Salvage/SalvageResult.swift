/// What salvage brought back from a damaged store: the items that authenticated (one version of each),
/// the items it found a trace of but could not bring back, and how it knows whether anything else is
/// missing. Holds secrets (the items' data) in ``SecretBytes`` only.
public struct SalvageResult: Sendable {
    /// The items recovered, in row order.
    public let items: [ExportedItem]
    /// The items seen but not recovered.
    public let lost: [LostItem]
    /// How many items the store's rows digest says it held, when a digest was found.
    public let expected: Int?
    /// Items the digest counts that left no trace at all (0 when there is no digest).
    public let unaccounted: Int
    /// Whether the recovered rows are exactly the rows the store's digest describes: then nothing was lost.
    public let matchesDigest: Bool
    /// Candidate copies of item rows read.
    public let candidates: Int
    /// Copies set aside because a newer authentic version of the same item was kept.
    public let superseded: Int
    /// Parts of the store (pages, rows) that failed their own check and were read anyway.
    public let damagedParts: Int
    /// How many parts (pages or rows) were read.
    public let partsRead: Int
    /// Whether the header record used was damaged (repaired, or an earlier copy failed).
    public let headerDamaged: Bool

    /// Whether every item came back: the recovered rows are exactly those the store's rows digest
    /// describes, and no trace of another item was found. Without a digest (destroyed, or a store that
    /// never had one) that cannot be told, and salvage does not claim it.
    public var isComplete: Bool { expected != nil && matchesDigest && lost.isEmpty }

    /// How many items were lost: those seen and those the digest counts but no trace of was found.
    public var lostCount: Int { lost.count + unaccounted }

    /// A salvage's findings.
    package init(
        items: [ExportedItem], lost: [LostItem], expected: Int?, unaccounted: Int, matchesDigest: Bool, candidates: Int,
        superseded: Int, damagedParts: Int, partsRead: Int, headerDamaged: Bool = false
    ) {
        self.items = items
        self.lost = lost
        self.expected = expected
        self.unaccounted = unaccounted
        self.matchesDigest = matchesDigest
        self.candidates = candidates
        self.superseded = superseded
        self.damagedParts = damagedParts
        self.partsRead = partsRead
        self.headerDamaged = headerDamaged
    }
}
