/// Finds the cells of table b-tree leaf pages in raw pages (https://www.sqlite.org/fileformat2.html#b_tree_pages):
/// through a leaf page's header and cell pointer array where they are sound, and, so that a damaged
/// header, pointer or a page SQLite no longer uses (a free page, a freeblock) costs nothing it need
/// not, by trying every offset of every page as the start of a cell. A cell is a payload-length varint,
/// a row-id varint and the payload, whose part past the page's local share continues on a chain of
/// overflow pages. Every cell found is only a candidate: the caller keeps what parses as a record.
///
/// Following overflow chains is bounded: a chain visits a page at most once, a cell's local part must
/// pass `accept` before its chain is followed, and one scan reads at most ``overflowBudget`` overflow
/// pages in all (a crafted file whose every offset starts a long chain would otherwise cost pages ×
/// offsets × chain length). A sound store reads each overflow page once from its cell's pointer.
final class SQLiteCellScanner {
    /// The pages.
    let images: SQLitePageImages
    /// The most overflow pages one scan reads: four per page of the file, and 1,024 more.
    let overflowBudget: Int
    /// Overflow pages read so far.
    private(set) var overflowPagesRead = 0
    /// Whether a chain was left unfollowed because the budget was spent.
    private(set) var budgetSpent = false

    /// A scanner of `images`.
    init(images: SQLitePageImages) {
        self.images = images
        overflowBudget = 4 * images.pages.count + 1024
    }

    /// One cell: its row id and whole payload (overflow followed).
    struct Cell: Hashable {
        let rowID: Int64
        let payload: [UInt8]
        /// Whether the page's own cell pointer led to it (not only a try at every offset).
        var structured = false
    }

    /// The cells of page `page` whose payload `accept` takes that its own header and cell pointers
    /// lead to (each offset once), with the offsets they start at.
    func structuredCells(of page: SQLitePageImages.Page, accept: ([UInt8]) -> Bool) -> (Set<Cell>, Set<Int>) {
        var found: Set<Cell> = []
        var offsets: Set<Int> = []
        let bytes = page.bytes
        let start = page.number == 1 ? 100 : 0
        guard bytes.count > start + 8, bytes[start] == 0x0D else { return (found, offsets) }
        let count = Int(bytes[start + 3]) << 8 | Int(bytes[start + 4])
        for index in 0..<count {
            let pointer = start + 8 + 2 * index
            guard pointer + 1 < images.usableSize else { break }
            let offset = Int(bytes[pointer]) << 8 | Int(bytes[pointer + 1])
            guard offsets.insert(offset).inserted, var cell = cell(in: bytes, at: offset, accept: accept) else { continue }
            cell.structured = true
            found.insert(cell)
        }
        return (found, offsets)
    }

    /// The cells of page `page` whose payload `accept` takes, from a try at every offset but
    /// `skipping` (where the page's structure already led), less those in `known`.
    func offsetCells(
        of page: SQLitePageImages.Page, accept: ([UInt8]) -> Bool, skipping: Set<Int>, known: Set<Cell>
    ) -> Set<Cell> {
        var found: Set<Cell> = []
        for offset in 0..<images.usableSize where !skipping.contains(offset) {
            guard let cell = cell(in: page.bytes, at: offset, accept: accept) else { continue }
            var structured = cell
            structured.structured = true
            if !known.contains(structured) { found.insert(cell) }
        }
        return found
    }

    /// The table-leaf cell starting at `offset` whose payload `accept` takes, or `nil` when none can
    /// start there.
    func cell(in bytes: [UInt8], at offset: Int, accept: ([UInt8]) -> Bool) -> Cell? {
        let usable = images.usableSize
        guard offset >= 0, offset < usable,
            let (length, lengthSize) = SQLiteRecord.varint(bytes, at: offset, limit: usable),
            length > 0, length < 1 << 24,
            let (rowID, rowIDSize) = SQLiteRecord.varint(bytes, at: offset + lengthSize, limit: usable), rowID > 0
        else { return nil }
        let payloadStart = offset + lengthSize + rowIDSize
        let total = Int(length)
        let local = localSize(total)
        if local == total {
            guard payloadStart + total <= usable else { return nil }
            let payload = Array(bytes[payloadStart..<(payloadStart + total)])
            return accept(payload) ? Cell(rowID: rowID, payload: payload) : nil
        }
        guard payloadStart + local + 4 <= usable, total <= images.pages.count * usable else { return nil }
        var payload = Array(bytes[payloadStart..<(payloadStart + local)])
        // The record header is in the local part: a payload that cannot be a record costs no chain.
        guard accept(payload) else { return nil }
        let chain = (total - local + usable - 5) / (usable - 4)
        guard overflowPagesRead + chain <= overflowBudget else {
            budgetSpent = true
            return nil
        }
        payload.reserveCapacity(total)
        var next = Int(SQLiteWALFrames.u32(bytes, payloadStart + local))
        var visited: Set<Int> = []
        while payload.count < total {
            guard next >= 1, visited.insert(next).inserted, let overflow = images.pages[next] else { return nil }
            overflowPagesRead += 1
            let take = min(usable - 4, total - payload.count)
            payload += overflow.bytes[4..<(4 + take)]
            next = Int(SQLiteWALFrames.u32(overflow.bytes, 0))
        }
        return accept(payload) ? Cell(rowID: rowID, payload: payload) : nil
    }

    /// How much of a payload of `total` bytes a table leaf keeps on its own page.
    private func localSize(_ total: Int) -> Int {
        let usable = images.usableSize
        let maxLocal = usable - 35
        guard total > maxLocal else { return total }
        let minLocal = (usable - 12) * 32 / 255 - 23
        let candidate = minLocal + (total - minLocal) % (usable - 4)
        return candidate <= maxLocal ? candidate : minLocal
    }
}
