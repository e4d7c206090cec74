/// What a salvage source found of the item rows: the candidates, the rows it saw but could not read,
/// and the damage it met on the way.
package struct SalvageScan {
    /// Every candidate row found (several copies of one row may be among them).
    package var candidates: [SalvageCandidate]
    /// Rows seen whose cells could not be read (an unknown class, a cell of the wrong size), by row id
    /// and class code when those could still be read.
    package var unreadable: [(rowID: Int64?, classCode: Int64?)]
    /// Parts of the store that failed their own check and were read anyway (SQLite: pages whose
    /// checksum fails), for the report.
    package var damagedParts: Int
    /// How many parts were read (SQLite: pages; PostgreSQL: rows).
    package var partsRead: Int

    /// A scan's findings.
    package init(
        candidates: [SalvageCandidate], unreadable: [(rowID: Int64?, classCode: Int64?)] = [], damagedParts: Int = 0,
        partsRead: Int = 0
    ) {
        self.candidates = candidates
        self.unreadable = unreadable
        self.damagedParts = damagedParts
        self.partsRead = partsRead
    }
}
