/// One copy of an item row that a salvage source found: the row as its cells read, and how recent
/// the copy is compared with the source's other copies (a higher number is newer: a later frame of
/// SQLite's write-ahead log over the database file). Not yet authenticated.
package struct SalvageCandidate {
    /// The row, with both ciphertexts.
    package var row: ItemRow
    /// How recent the copy is, within its source: higher is newer.
    package var recency: Int64

    /// A candidate row and its recency.
    package init(row: ItemRow, recency: Int64) {
        self.row = row
        self.recency = recency
    }
}
