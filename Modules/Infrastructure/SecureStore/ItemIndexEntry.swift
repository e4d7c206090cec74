/// The plaintext columns of one item row, which SQLite searches: its id, class code and blind
/// indexes. The ciphertexts are authenticated row by row; these are authenticated all together by
/// the rows digest (see ``RowsDigest``), so a row cannot silently vanish from a lookup.
struct ItemIndexEntry: Equatable {
    /// The row id.
    let id: Int64
    /// The class code as stored (it may be one this version does not know).
    let classCode: Int64
    /// The access-group index.
    let group: [UInt8]
    /// The unique-key index.
    let unique: [UInt8]
    /// The primary-attribute index.
    let primary: [UInt8]
}
