/// A row's three index cells: access group, unique key and primary attribute.
package struct IndexCells: Equatable {
    /// The access-group index.
    package var group: BlindIndex
    /// The unique-key index.
    package var unique: BlindIndex
    /// The primary-attribute index.
    package var primary: BlindIndex

    /// The cells of one row.
    @inlinable
    package init(group: BlindIndex, unique: BlindIndex, primary: BlindIndex) {
        self.group = group
        self.unique = unique
        self.primary = primary
    }
}
