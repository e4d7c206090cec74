package import Data

/// Which rows a read asks a storage for: the three lookups the store plans (see ``QueryPlan``) and a
/// scan of every row.
package enum RowSelection {
    /// Rows with this primary and unique index (at most one, unless the indexes were edited).
    case unique(primary: BlindIndex, unique: BlindIndex)
    /// Rows with this primary index (the primary index is short: other classes and groups may share it).
    case primary(BlindIndex)
    /// Every row of one class in one access group.
    case classAndGroup(ItemClass, group: BlindIndex)
    /// Every row.
    case all

    /// Whether `row`, as stored, is one this selection picks (for a read that scans the table itself).
    package func picks(_ row: ItemRow) -> Bool {
        switch self {
        case .unique(let primary, let unique): row.primary == primary && row.unique == unique
        case .primary(let primary): row.primary == primary
        case .classAndGroup(let itemClass, let group): row.itemClass == itemClass && row.group == group
        case .all: true
        }
    }
}
