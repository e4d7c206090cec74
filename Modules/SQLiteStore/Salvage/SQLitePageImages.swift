internal import CCRC32C
import Data
import Foundation

/// The pages of a store file as salvage reads them, without SQLite: the raw database file, with each
/// page replaced by its newest committed frame in the write-ahead log (`-wal`) when it has one. The
/// files are only read (opened read-only, never locked, checkpointed or written beside).
struct SQLitePageImages {
    /// One page: its number, bytes, and how recent the copy is (0: the database file; n: the log's
    /// n-th frame).
    struct Page {
        let number: Int
        let bytes: [UInt8]
        let recency: Int64
    }

    /// The page size used to cut the file.
    let pageSize: Int
    /// Usable bytes of each page (the page size less the reserved bytes at its end).
    let usableSize: Int
    /// Every page, by number.
    let pages: [Int: Page]
    /// Pages of the database file (not replaced by a log frame) whose checksum fails.
    let damagedPages: Int

    /// Reads the store at `path` and its log.
    /// - Throws: ``SecureStoreError/storage(_:)`` when the file cannot be read.
    init(path: String) throws(SecureStoreError) {
        let file = try Self.read(path, required: true)
        let log = SQLiteWALFrames((try? Self.read(path + "-wal", required: false)) ?? [])
        let header = Self.headerPageSize(file)
        let size = header ?? log.pageSize ?? Self.guessPageSize(file)
        let reserved = file.count > 20 && header != nil ? Int(file[20]) : Int(SQLiteChecksumVFS.reservedBytes)
        pageSize = size
        usableSize = max(480, size - reserved)
        var pages: [Int: Page] = [:]
        var short: Set<Int> = []
        var offset = 0
        while offset < file.count {
            var bytes = Array(file[offset..<min(offset + size, file.count)])
            let number = offset / size + 1
            if bytes.count < size {
                short.insert(number)  // A page cut short by a truncated file.
                bytes += [UInt8](repeating: 0, count: size - bytes.count)
            }
            pages[number] = Page(number: number, bytes: bytes, recency: 0)
            offset += size
        }
        for (index, frame) in log.frames.enumerated() where log.pageSize == size {
            pages[frame.page] = Page(number: frame.page, bytes: frame.bytes, recency: Int64(index + 1))
        }
        self.pages = pages
        // Only pages of the database file carry a checksum (the log's pages get theirs at a checkpoint).
        let checked = reserved == SQLiteChecksumVFS.reservedBytes
        damagedPages = pages.values.filter { page in
            page.recency == 0 && (short.contains(page.number) || checked && !Self.checksumHolds(page.bytes, number: page.number))
        }.count
    }

    /// Whether a page's last 8 bytes are its checksum (`SQLiteChecksumVFS`).
    static func checksumHolds(_ page: [UInt8], number: Int) -> Bool {
        let reserved = Int(SQLiteChecksumVFS.reservedBytes)
        guard page.count > reserved else { return false }
        let sum = page.withUnsafeBytes { raw in
            hardtack_page_checksum(raw.baseAddress!, page.count - reserved, UInt32(truncatingIfNeeded: number))
        }
        let stored = page[(page.count - reserved)...].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return stored == sum
    }

    /// The page size in a database header that is still well-formed, else `nil`.
    private static func headerPageSize(_ file: [UInt8]) -> Int? {
        guard file.count >= 100, Array(file[0..<16]) == Array("SQLite format 3\0".utf8) else { return nil }
        let raw = Int(file[16]) << 8 | Int(file[17])
        let size = raw == 1 ? 65536 : raw
        guard size >= 512, size <= 65536, size & (size - 1) == 0, file[20] <= 32 else { return nil }
        return size
    }

    /// With a damaged header: the page size under which most of the first pages carry their checksum.
    private static func guessPageSize(_ file: [UInt8]) -> Int {
        var best = (size: 4096, holding: 0)
        for shift in 9...16 {
            let size = 1 << shift
            var holding = 0
            for number in 1...8 where number * size <= file.count {
                if checksumHolds(Array(file[((number - 1) * size)..<(number * size)]), number: number) { holding += 1 }
            }
            if holding > best.holding { best = (size, holding) }
        }
        return best.size
    }

    /// The whole file at `path`, read through a read-only descriptor.
    private static func read(_ path: String, required: Bool) throws(SecureStoreError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if !required { return [] }
            throw .storage(
                StorageFailure(
                    backend: "SQLite", kind: .unavailable,
                    message: "the store file \(path) cannot be read (check that it exists and that you may read it)"))
        }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.readToEnd() ?? Data())
        } catch {
            throw .storage(
                StorageFailure(backend: "SQLite", kind: .other, message: "reading the store file \(path) failed"))
        }
    }
}
