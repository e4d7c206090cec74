import Data
import StoreCore

/// Reading the table around damaged pages. SQLite stops a scan at the first page that fails its
/// checksum; the rows past it are still reachable by seeking to a row id past that page. A seek reads
/// only the pages from the root down to one leaf, so the first row id a seek can reach again is found
/// by probing (steps that double, then halving back), at a cost of a few dozen seeks per damaged page,
/// and the scan goes on from there. Rows on the damaged pages (or under a damaged interior page) are
/// lost, and the answer says so.
extension SQLiteItemStorage {
    /// The rows `selection` picks, read in row-id order around the pages that fail their checksum.
    func rowsAroundDamage(_ selection: RowSelection, columns: RowColumns) throws(SecureStoreError)
        -> (rows: [ItemRow], unreadable: Int, skipped: Bool)
    {
        let scan = try connection.prepared(
            "SELECT id, class, grp, uniq, prim, \(columns.contains(.attributes) ? "attrs" : "NULL"), "
                + "\(columns.contains(.data) ? "data" : "NULL") FROM items WHERE id >= ? ORDER BY id")
        let probe = try connection.prepared("SELECT id FROM items WHERE id >= ? ORDER BY id LIMIT 1")
        var rows: [ItemRow] = []
        var unreadable = 0
        var skipped = false
        var from = Int64.min
        while true {
            scan.bind(from, at: 1)
            var last: Int64?
            do {
                while try scan.step() {
                    last = scan.int64(at: 0)
                    guard let row = itemRow(scan, columns: columns) else {
                        unreadable += 1
                        continue
                    }
                    if selection.picks(row) { rows.append(row) }
                }
                scan.reset()
                return (rows, unreadable, skipped)
            } catch .integrityFailure {
                skipped = true
                // The store gives rows ids from 1: a scan that failed before its first row probes from 0.
                let base = last ?? (from == Int64.min ? 0 : from)
                guard let next = try firstReadableID(after: base, probe: probe) else {
                    return (rows, unreadable, skipped)
                }
                from = next
            }
        }
    }

    /// The row of the statement's current result (columns in the order of every item query), or `nil`
    /// when its class is unknown or an index cell is not a blob of its size.
    func itemRow(_ select: SQLiteStatement, columns: RowColumns) -> ItemRow? {
        guard let classCode = select.strictInteger(at: 1),
            let itemClass = ItemClass(rawValue: UInt8(clamping: classCode)),
            let cells = indexCells(select)
        else { return nil }
        return ItemRow(
            id: select.int64(at: 0), itemClass: itemClass, group: cells.group, unique: cells.unique,
            primary: cells.primary,
            sealedAttributes: columns.contains(.attributes) ? select.bytes(at: 5) : [],
            sealedData: columns.contains(.data) ? select.bytes(at: 6) : [])
    }

    /// The smallest row id past `base` from which a seek reads without meeting a damaged page, or `nil`
    /// when none does up to the largest id.
    private func firstReadableID(after base: Int64, probe: SQLiteStatement) throws(SecureStoreError) -> Int64? {
        func reads(_ id: Int64) throws(SecureStoreError) -> Bool {
            probe.bind(id, at: 1)
            defer { probe.reset() }
            do {
                _ = try probe.step()
                return true
            } catch .integrityFailure {
                return false
            }
        }
        var failed = base
        var step: Int64 = 1
        var readable: Int64
        while true {
            let (candidate, overflow) = base.addingReportingOverflow(step)
            let id = overflow ? Int64.max : candidate
            if try reads(id) {
                readable = id
                break
            }
            if overflow || id == Int64.max { return nil }
            failed = id
            step = step.multipliedReportingOverflow(by: 2).overflow ? Int64.max : step * 2
        }
        while failed < readable - 1 {
            // Halfway, computed without overflow however far apart the two are.
            let middle = failed &+ Int64(bitPattern: (UInt64(bitPattern: readable) &- UInt64(bitPattern: failed)) / 2)
            if try reads(middle) { readable = middle } else { failed = middle }
        }
        return readable
    }
}
