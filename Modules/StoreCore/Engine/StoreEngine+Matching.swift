import Data
import Domain

/// Finding the rows that match a query, through the lookup its plan picks.
extension StoreEngine {
    /// Calls `visit` for each item of the handle's groups that matches `query`, in row order, until it
    /// returns `false`. Attributes are decrypted when asked for or needed to check the match; `copying`
    /// names the ciphertexts `visit` needs besides those, and `decryptsData` says that `visit` decrypts
    /// every row's data before it acts on the row: a joint row's secret, opened with its attributes
    /// in the same decryption, is then passed to `visit` (`nil` when it still has to be opened).
    ///
    /// Damage stays local: a row whose attributes do not authenticate, a row that cannot be read, or a
    /// damaged page met by a scan is stepped past, and the read goes on to the rows after it. The
    /// damage is returned (the first met, `nil` when none): an answer that says "this one matches" is
    /// still whole, but a list or a "none" may be missing the rows lost, and the caller must then fail.
    func forEachMatch(
        _ query: ItemAttributes, keys: ItemKeys, decryptAttributes: Bool, decryptsData: Bool, copying: RowColumns,
        _ visit: (ItemRow, ItemAttributes?, SecretBytes?) throws(SecureStoreError) -> Bool
    ) throws(SecureStoreError) -> SecureStoreError? {
        var damage: SecureStoreError?
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
                rows = try rowsWithUniqueKey(of: query, group: group, keys: keys, columns: columns)
            } else if plan.byPrimary {
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                rows = try scanRows(.primary(primary), columns: columns, damage: &damage)
                for row in rows where row.primary != primary {
                    throw .integrityFailure("an item's row disagrees with its primary index")
                }
                // The primary index is short: another class or group may share a value.
                rows.removeAll { $0.itemClass != itemClass || $0.group != group }
            } else {
                rows = try scanRows(.classAndGroup(itemClass, group: group), columns: columns, damage: &damage)
            }
            for row in rows {
                var attributes: ItemAttributes?
                var data: SecretBytes?
                if opensAttributes {
                    do {
                        if decryptsData && row.isJoint {
                            (attributes, data) = try RowOpening.both(row, keys: keys)
                        } else {
                            attributes = try openAttributes(row, keys: keys)
                        }
                    } catch .integrityFailure(let reason) {
                        damage = damage ?? .integrityFailure(reason)
                        continue
                    }
                    if mustCheck && !attributes!.matches(query) { continue }
                }
                if try !visit(row, attributes, data) { return damage }
            }
        }
        return damage
    }

    /// The rows holding `attributes`' unique key in `group` (one at most), read with `columns`. The
    /// unique index covers the class and group: a row it finds with another class or group, or other
    /// index values, was edited (or the backend's index is damaged), which is an integrity failure.
    /// Find, the data-only update, add-or-update and restore look items up here, and a refused add,
    /// restore or update confirms its duplicate here.
    func rowsWithUniqueKey(of attributes: ItemAttributes, group: BlindIndex, keys: ItemKeys, columns: RowColumns)
        throws(SecureStoreError) -> [ItemRow]
    {
        let itemClass = attributes.itemClass
        let unique = try keys.uniqueIndex(attributes, group: group)
        let primary = try keys.primaryIndex(itemClass, value: attributes[itemClass.primaryAttribute], group: group)
        let rows = try fetchRows(.unique(primary: primary, unique: unique), columns: columns)
        for row in rows
        where row.unique != unique || row.primary != primary || row.itemClass != itemClass || row.group != group {
            throw .integrityFailure("an item's row disagrees with its unique index")
        }
        return rows
    }

    /// The rows a scan (or a lookup by primary index, which may pick many) picks, read around damage
    /// (``ItemStorage/rowsAroundDamage(_:columns:)``) when the backend's read fails as damage; `damage`
    /// is set when rows were lost or could not be read.
    func scanRows(_ selection: RowSelection, columns: RowColumns, damage: inout SecureStoreError?)
        throws(SecureStoreError) -> [ItemRow]
    {
        let columns = columns.bothIfAny
        let malformed = SecureStoreError.integrityFailure("an item has an unknown class or a malformed index")
        let failure: SecureStoreError
        do {
            let (rows, unreadable) = try storage.rows(selection, columns: columns)
            if unreadable > 0 { damage = damage ?? malformed }
            return rows
        } catch .integrityFailure(let reason) {
            failure = .integrityFailure(reason)
        }
        // A damaged page of the backend's index costs nothing when the table itself reads whole: the
        // answer is then as complete as an undamaged lookup's (and a list still needs the rows digest).
        do {
            let (rows, unreadable, skipped) = try storage.rowsAroundDamage(selection, columns: columns)
            if skipped { damage = damage ?? failure }
            if unreadable > 0 { damage = damage ?? malformed }
            return rows
        } catch .integrityFailure {
            damage = damage ?? failure
            return []
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
        let columns = columns.bothIfAny
        let rows: [ItemRow]
        let unreadable: Int
        do {
            (rows, unreadable) = try storage.rows(selection, columns: columns)
        } catch .integrityFailure(let reason) {
            switch selection {
            case .unique, .primary: break
            case .classAndGroup, .all: throw .integrityFailure(reason)
            }
            guard let (picked, _, _) = try? storage.rowsAroundDamage(selection, columns: columns), !picked.isEmpty else {
                throw .integrityFailure(reason)
            }
            return picked
        }
        guard unreadable == 0 else { throw .integrityFailure("an item has an unknown class or a malformed index") }
        return rows
    }
}
