package import Data
import Domain
import Foundation

/// Salvage: the items of a damaged store that still authenticate, found through a ``SalvageSource``.
///
/// Every candidate row is opened exactly as the store's own reads open it (``RowOpening``): its
/// attributes and its secret must authenticate under the store's key, bound to the row's id, class and
/// index cells, and those index cells must be the ones the decrypted attributes give. A row that fails
/// any of these is never kept; what is known of it is reported.
///
/// Several authentic copies of one item (the same row on a page and in the write-ahead log, a stale
/// copy left on a page SQLite no longer uses) are narrowed to one: per row id, then per unique key,
/// the copy with the highest row version (PostgreSQL), then the latest modification date (sealed in the
/// attributes, so it cannot be forged), then the most recent source copy, is kept.
package enum StoreSalvage {
    /// Reads every candidate of `source`, keeps those that authenticate with the key `keySource`
    /// unlocks, and says what was lost.
    /// - Throws: ``SecureStoreError/wrongKey`` when a header was found but the key opens none;
    ///   ``SecureStoreError/integrityFailure(_:)`` when no header can be found at all (nothing can be
    ///   decrypted without it).
    package static func recover(from source: any SalvageSource, keySource: KeySource) throws(SecureStoreError)
        -> SalvageResult
    {
        let unlocked = try unlock(try source.headerRecords(), keySource: keySource)
        let scan = try source.candidateRows()
        // Two header records that differ and both unlock (a copy replaced by another store's header under
        // the same passphrase, say): the one whose key authenticates the most rows is the store's.
        let chosen =
            unlocked.count == 1
            ? 0
            : unlocked.indices.max { authenticCount(scan, unlocked[$0].keys) < authenticCount(scan, unlocked[$1].keys) }!
        for (index, other) in unlocked.enumerated() where index != chosen { other.keys.wipe() }
        let keys = unlocked[chosen].keys
        let headerDamaged = unlocked[chosen].damaged
        defer { keys.wipe() }
        var opened: [Int64: [Authentic]] = [:]
        var failures: [Int64: LostItem] = [:]
        for candidate in scan.candidates {
            switch open(candidate, keys: keys) {
            case .authentic(let authentic): opened[candidate.row.id, default: []].append(authentic)
            case .lost(let lost):
                // Keep the most telling failure of each row: one that still names the item.
                if let known = failures[candidate.row.id], !known.name.isEmpty { continue }
                failures[candidate.row.id] = lost
            }
        }
        // One copy per row id, then one item per unique key (an item deleted and added again under a
        // new id may have left its old row behind).
        var superseded = 0
        var byKey: [[UInt8]: Authentic] = [:]
        for (_, copies) in opened {
            let best = copies.max(by: isOlder)!
            superseded += copies.count - 1
            let key = best.row.group.bytes + best.row.unique.bytes + [best.row.itemClass.rawValue]
            if let other = byKey[key] {
                superseded += 1
                if isOlder(other, best) { byKey[key] = best }
            } else {
                byKey[key] = best
            }
        }
        let kept = byKey.values.sorted { $0.row.id < $1.row.id }
        let keptIDs = Set(kept.map(\.row.id))
        var lost = failures.filter { !keptIDs.contains($0.key) && !opened.keys.contains($0.key) }.map(\.value)
        for (rowID, classCode) in scan.unreadable where rowID.map({ !keptIDs.contains($0) && failures[$0] == nil }) ?? true {
            lost.append(
                LostItem(
                    rowID: rowID, itemClass: classCode.flatMap { ItemClass(rawValue: UInt8(clamping: $0)) },
                    reason: .unreadableRow))
        }
        lost.sort { ($0.rowID ?? .max) < ($1.rowID ?? .max) }
        let groupDigests = try source.groupDigests()
        let (expected, matches) =
            groupDigests.isEmpty
            ? try digestCheck(kept.map(\.row), digests: try source.rowsDigests(), keys: keys)
            : try groupDigestCheck(
                kept.map(\.row), digests: groupDigests, registry: try source.groupRegistry(), keys: keys)
        return SalvageResult(
            items: kept.map { ExportedItem(attributes: $0.attributes, data: $0.data) }, lost: lost, expected: expected,
            unaccounted: max(0, (expected ?? 0) - kept.count - lost.count), matchesDigest: matches,
            candidates: scan.candidates.count, superseded: superseded, damagedParts: scan.damagedParts,
            partsRead: scan.partsRead, headerDamaged: headerDamaged)
    }

    /// One authentic copy of an item.
    private struct Authentic {
        let row: ItemRow
        let attributes: ItemAttributes
        let data: SecretBytes
        let recency: Int64

        var modified: Date {
            if case .date(let date) = attributes[.modificationDate] { return date }
            return .distantPast
        }
    }

    /// A candidate opened: authentic, or lost with what is known of it.
    private enum Opened {
        case authentic(Authentic)
        case lost(LostItem)
    }

    /// Whether `lhs` is an older copy than `rhs`: by row version, then modification date, then the
    /// source's own recency, then row id.
    private static func isOlder(_ lhs: Authentic, _ rhs: Authentic) -> Bool {
        (lhs.row.version ?? 0, lhs.modified, lhs.recency, lhs.row.id)
            < (rhs.row.version ?? 0, rhs.modified, rhs.recency, rhs.row.id)
    }

    /// Every distinct header record the key opens (repairing one flipped bit, ``HeaderRepair``), in
    /// the source's order, each with whether the header was damaged: that record repaired, another
    /// record seen that does not unlock or differs, or more than one unlocking.
    private static func unlock(_ records: [HeaderRecord], keySource: KeySource) throws(SecureStoreError)
        -> [(keys: ItemKeys, damaged: Bool)]
    {
        guard !records.isEmpty else {
            throw .integrityFailure(
                "no copy of the store header could be found, so no item can be decrypted (the file is not a Hardtack "
                    + "store, or its header is destroyed)")
        }
        var firstError: SecureStoreError?
        var tried: [HeaderRecord] = []
        var unlocked: [(keys: ItemKeys, damaged: Bool)] = []
        for record in records where !tried.contains(record) {
            tried.append(record)
            do {
                let (keys, damaged) = try HeaderRepair.unlock(record, keySource: keySource)
                unlocked.append((keys, damaged))
            } catch {
                // A wrong key is the answer that matters most; damage to one copy is not.
                if case .wrongKey = error { firstError = error } else if firstError == nil { firstError = error }
            }
        }
        guard !unlocked.isEmpty else { throw firstError ?? .wrongKey }
        // Copies that differ, or one that does not unlock, are header damage whichever record is used.
        return unlocked.map { ($0.keys, $0.damaged || tried.count > 1) }
    }

    /// How many of `scan`'s candidates authenticate under `keys` (their attributes, bound to their row).
    private static func authenticCount(_ scan: SalvageScan, _ keys: ItemKeys) -> Int {
        scan.candidates.filter { (try? RowOpening.attributes($0.row, keys: keys)) != nil }.count
    }

    /// Opens one candidate as the store's reads would: attributes, indexes, then data.
    private static func open(_ candidate: SalvageCandidate, keys: ItemKeys) -> Opened {
        let row = candidate.row
        // A joint row opens once, for both (its one ciphertext holds them); a format-1 row's attributes
        // first, so that an item whose secret alone is damaged is still named.
        var opened: (attributes: ItemAttributes, data: SecretBytes)?
        if row.isJoint { opened = try? RowOpening.both(row, keys: keys) }
        guard let attributes = opened?.attributes ?? (row.isJoint ? nil : try? RowOpening.attributes(row, keys: keys))
        else {
            return .lost(LostItem(rowID: row.id, itemClass: row.itemClass, reason: .attributes))
        }
        var name: [AttributeName: AttributeValue] = [:]
        for attribute in [row.itemClass.primaryAttribute, .account, .label] {
            if let value = attributes[attribute] { name[attribute] = value }
        }
        guard RowOpening.indexesAgree(row, with: attributes, keys: keys) else {
            return .lost(LostItem(rowID: row.id, itemClass: row.itemClass, reason: .indexes, name: name))
        }
        guard let data = opened?.data ?? (try? RowOpening.data(row, keys: keys)) else {
            return .lost(LostItem(rowID: row.id, itemClass: row.itemClass, reason: .data, name: name))
        }
        return .authentic(Authentic(row: row, attributes: attributes, data: data, recency: candidate.recency))
    }

    /// The count the groups' rows digests give, and whether the kept rows are exactly the rows they
    /// describe: every group's rows match its digest, and no kept row is of a group without one.
    /// And the registry names exactly the groups that have a digest row, so that a whole group gone (its
    /// rows and its digest row) is not taken for a store that never had it.
    private static func groupDigestCheck(
        _ rows: [ItemRow], digests: [(group: BlindIndex?, encoded: [UInt8])], registry: [UInt8]?, keys: ItemKeys
    ) throws(SecureStoreError) -> (expected: Int?, matches: Bool) {
        var computed: [BlindIndex: RowsDigest] = [:]
        for row in rows {
            computed[row.group, default: .empty].insert(
                try RowsDigest.rowHash(row, keys: keys))
        }
        var expected = 0
        var matches = true
        var described: Set<BlindIndex> = []
        for (group, encoded) in digests {
            guard let group, let stored = try? RowsDigest(stored: encoded, role: .group(group), keys: keys) else {
                matches = false
                continue
            }
            described.insert(group)
            expected += Int(clamping: stored.count)
            if (computed[group] ?? .empty) != stored { matches = false }
        }
        if !Set(computed.keys).isSubset(of: described) { matches = false }
        var groups = RowsDigest.empty
        for group in described { groups.insert(try RowsDigest.groupHash(group, keys: keys)) }
        if registry.flatMap({ try? RowsDigest(stored: $0, role: .registry, keys: keys) }) != groups { matches = false }
        return (expected, matches)
    }

    /// The count the rows digest gives, and whether the kept rows are exactly the rows it describes: a
    /// copy that matches them (a keyed hash, which no stray bytes match by chance), else the first
    /// copy that decodes.
    private static func digestCheck(_ rows: [ItemRow], digests: [[UInt8]], keys: ItemKeys) throws(SecureStoreError)
        -> (expected: Int?, matches: Bool)
    {
        let stored = digests.compactMap { try? RowsDigest(stored: $0, role: .store, keys: keys) }
        guard let first = stored.first else { return (nil, false) }
        var digest = RowsDigest.empty
        for row in rows {
            digest.insert(
                try RowsDigest.rowHash(row, keys: keys))
        }
        if stored.contains(digest) { return (Int(clamping: digest.count), true) }
        return (Int(clamping: first.count), false)
    }
}
