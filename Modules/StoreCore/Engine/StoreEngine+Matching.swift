import Data

/// Finding the rows that match a query, through the lookup its plan picks.
extension StoreEngine {
    /// Calls `visit` for each item of the handle's groups that matches `query`, in row order, until it
    /// returns `false`. Attributes are decrypted when asked for or needed to check the match; `copying`
    /// names the ciphertexts `visit` needs besides those, and `decryptsData` says that `visit` decrypts
    /// every row's data before it acts on the row.
    func forEachMatch(
        _ query: ItemAttributes, keys: ItemKeys, decryptAttributes: Bool, decryptsData: Bool, copying: RowColumns,
        _ visit: (ItemRow, ItemAttributes?) throws(SecureStoreError) -> Bool
    ) throws(SecureStoreError) {
        let groupPositions = try resolveGroupsForRead(query.accessGroup)
        let itemClass = query.itemClass
        let plan = QueryPlan(query)
        let mustCheck = plan.mustCheck
        let opensAttributes = mustCheck || decryptAttributes
        // The row's own index cells are always read and compared with the query's: a row whose group or
        // class cell was edited must be an integrity error even though its ciphertext, bound to the
        // query's values, would still decrypt.
        let columns = opensAttributes ? copying.union(.attributes) : copying
        for position in groupPositions {
            let group = groupIndexes[position]
            var rows: [ItemRow]
            if plan.byUnique {
                let unique = try keys.uniqueIndex(query, group: group)
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                rows = try fetchRows(.unique(primary: primary, unique: unique), columns: columns)
                // The unique index covers the class and group: a row it finds with another class or
                // group, or other index values, was edited (or the backend's index is damaged).
                for row in rows
                where row.unique != unique || row.primary != primary || row.itemClass != itemClass || row.group != group {
                    throw .integrityFailure("an item's row disagrees with its unique index")
                }
            } else if plan.byPrimary {
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                rows = try fetchRows(.primary(primary), columns: columns)
                for row in rows where row.primary != primary {
                    throw .integrityFailure("an item's row disagrees with its primary index")
                }
                // The primary index is short: another class or group may share a value.
                rows.removeAll { $0.itemClass != itemClass || $0.group != group }
            } else {
                rows = try fetchRows(.classAndGroup(itemClass, group: group), columns: columns)
            }
            for row in rows {
                var attributes: ItemAttributes?
                if opensAttributes {
                    attributes = try openAttributes(row, keys: keys)
                    if mustCheck && !attributes!.matches(query) { continue }
                }
                if try !visit(row, attributes) { return }
            }
        }
    }

    /// The rows `selection` picks, with the cells `columns` names. When a lookup through the backend's
    /// index fails as damage (a page of the index failing its checksum), the table itself is read and
    /// the rows picked out of it: damage to the index costs no item whose own row is sound. What such a
    /// read finds is authenticated as usual, and an answer of "none" still needs the rows digest and
    /// the index (``confirmComplete(_:keys:found:)``), so it stays damage.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when a row has a class this version does not
    ///   know or an index cell of the wrong type or size.
    func fetchRows(_ selection: RowSelection, columns: RowColumns) throws(SecureStoreError) -> [ItemRow] {
        let rows: [ItemRow]
        let unreadable: Int
        do {
            (rows, unreadable) = try storage.rows(selection, columns: columns)
        } catch .integrityFailure(let reason) {
            let wanted: (ItemRow) -> Bool
            switch selection {
            case .unique(let primary, let unique): wanted = { $0.primary == primary && $0.unique == unique }
            case .primary(let primary): wanted = { $0.primary == primary }
            case .classAndGroup, .all: throw .integrityFailure(reason)
            }
            guard let (all, _) = try? storage.rows(.all, columns: columns) else { throw .integrityFailure(reason) }
            let picked = all.filter(wanted)
            guard !picked.isEmpty else { throw .integrityFailure(reason) }
            return picked
        }
        guard unreadable == 0 else { throw .integrityFailure("an item has an unknown class or a malformed index") }
        return rows
    }
}
