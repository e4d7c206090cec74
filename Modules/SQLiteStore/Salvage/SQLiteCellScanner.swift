/// Finds the cells of table b-tree leaf pages in raw pages (https://www.sqlite.org/fileformat2.html#b_tree_pages):
/// through a leaf page's header and cell pointer array where they are sound, and, so that a damaged
/// header, pointer or a page SQLite no longer uses (a free page, a freeblock) costs nothing it need
/// not, by trying every offset of every page as the start of a cell. A cell is a payload-length varint,
/// a row-id varint and the payload, whose part past the page's local share continues on a chain of
/// overflow pages. Every cell found is only a candidate: the caller keeps what parses as a record.
struct SQLiteCellScanner {
    /// The pages.
    let images: SQLitePageImages

    /// One cell: its row id and whole payload (overflow followed).
    struct Cell: Hashable {
        let rowID: Int64
        let payload: [UInt8]
        /// Whether the page's own cell pointer led to it (not only a try at every offset).
        var structured = false
    }

    /// Every cell of page `page` whose payload `accept` takes, from the page's own structure and from
    /// every offset.
    func cells(of page: SQLitePageImages.Page, accept: ([UInt8]) -> Bool) -> Set<Cell> {
        var found: Set<Cell> = []
        let bytes = page.bytes
        let start = page.number == 1 ? 100 : 0
        if bytes.count > start + 8, bytes[start] == 0x0D {
            let count = Int(bytes[start + 3]) << 8 | Int(bytes[start + 4])
            for index in 0..<count {
                let pointer = start + 8 + 2 * index
                guard pointer + 1 < images.usableSize else { break }
                if var cell = cell(in: bytes, at: Int(bytes[pointer]) << 8 | Int(bytes[pointer + 1])), accept(cell.payload) {
                    cell.structured = true
                    found.insert(cell)
                }
            }
        }
        for offset in 0..<images.usableSize {
            guard let cell = cell(in: bytes, at: offset), accept(cell.payload) else { continue }
            var structured = cell
            structured.structured = true
            if !found.contains(structured) { found.insert(cell) }
        }
        return found
    }

    /// The table-leaf cell starting at `offset`, or `nil` when none can start there.
    func cell(in bytes: [UInt8], at offset: Int) -> Cell? {
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
            return Cell(rowID: rowID, payload: Array(bytes[payloadStart..<(payloadStart + total)]))
        }
        guard payloadStart + local + 4 <= usable, total <= images.pages.count * usable else { return nil }
        var payload = Array(bytes[payloadStart..<(payloadStart + local)])
        var next = Int(SQLiteWALFrames.u32(bytes, payloadStart + local))
        var visited: Set<Int> = []
        while payload.count < total {
            guard next >= 1, visited.insert(next).inserted, let overflow = images.pages[next] else { return nil }
            let take = min(usable - 4, total - payload.count)
            payload += overflow.bytes[4..<(4 + take)]
            next = Int(SQLiteWALFrames.u32(overflow.bytes, 0))
        }
        return Cell(rowID: rowID, payload: payload)
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
