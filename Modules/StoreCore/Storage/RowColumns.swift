/// Which ciphertexts a read copies out of each row besides its id, class and index cells (which every
/// read returns: a row's own cells are always compared with what the query expects).
package struct RowColumns: OptionSet, Sendable {
    /// The option bits.
    package let rawValue: UInt8
    /// A set from its bits.
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The attributes' ciphertext.
    package static let attributes = RowColumns(rawValue: 1)
    /// The data's ciphertext.
    package static let data = RowColumns(rawValue: 2)
}

extension RowColumns {
    /// Both ciphertexts when either is wanted, else none: a row's layout (``RowFormat``) shows only
    /// with both (a joint row's attributes are in its data, and an empty `attrs` column is what marks
    /// it), so the engine never reads one alone.
    package var bothIfAny: RowColumns { isEmpty ? [] : [.attributes, .data] }
}
