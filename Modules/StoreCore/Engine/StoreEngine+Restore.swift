package import Data
package import Domain
import Foundation

/// Putting back an exported (or salvaged) item as it was: its dates are kept, not set anew.
extension StoreEngine {
    /// Adds `attributes` (with their creation and modification dates, as an export holds them) and
    /// `data`. When the item's unique key is taken, `update` replaces that item's attributes and data
    /// with these, keeping its own creation date; without `update` it is
    /// ``SecureStoreError/duplicateItem``. A date missing from `attributes` is set to now.
    package func restore(_ attributes: ItemAttributes, data: SecretBytes, update: Bool) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        let keys = try unlockedKeys()
        let now = roundedNow()
        let created = attributes[.creationDate] ?? .date(now)
        let modified = attributes[.modificationDate] ?? .date(now)
        var full = attributes
        full.setStoreManaged(.creationDate, nil)
        full.setStoreManaged(.modificationDate, nil)
        try checkWritable(full)
        let group = try resolveGroupForWrite(full.accessGroup)
        full.reserveCapacity(forAdditional: 3)
        full.setStoreManaged(.accessGroup, .string(groups[group]))
        return try writeTyped { () throws(SecureStoreError) -> AddOrUpdateOutcome in
            if let row = try lockedRowWithUniqueKey(of: full, group: group, keys: keys) {
                // Opened first, also when it is only reported: a row that does not open is damage, not
                // a duplicate (``confirmedDuplicate(_:group:keys:)``).
                let old = try openAttributes(row, keys: keys)
                guard update else { throw .duplicateItem }
                full.setStoreManaged(.creationDate, old[.creationDate] ?? created)
                guard case .date(let date) = modified else { throw .invalidAttributeValue(.modificationDate, expected: .date) }
                try rewrite(row, old: old, changes: full, data: data, keys: keys, replacing: true, modified: date)
                return .updated
            }
            full.setStoreManaged(.creationDate, created)
            full.setStoreManaged(.modificationDate, modified)
            try insert(full, data: data, group: group, keys: keys)
            return .added
        }
    }

    /// How many rows of `itemClass` the handle's groups hold, counted without decrypting anything (an
    /// export's progress total; the export's own reads check every row).
    package func countRows(_ itemClass: ItemClass) throws(SecureStoreError) -> Int {
        let keys = try unlockedKeys()
        var count = 0
        // A count only for progress: rows past damage are not counted, and the export's own reads say so.
        _ = try forEachMatch(
            try ItemAttributes(itemClass, [:]), keys: keys, decryptAttributes: false, decryptsData: false, copying: []
        ) { (_, _, _) throws(SecureStoreError) in
            count += 1
            return true
        }
        return count
    }
}
