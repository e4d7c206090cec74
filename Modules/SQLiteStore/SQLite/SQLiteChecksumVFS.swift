import StoreCore
internal import CCRC32C
internal import CSQLite
internal import CSodium

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A VFS shim over SQLite's default VFS that keeps a checksum of every page of a store's database
/// file in the page's last 8 bytes (the reserved bytes), and fails a read whose page does not match.
///
/// SQLite keeps no checksum of its own pages. Row data is authenticated by the store's encryption, but
/// the b-tree pages that lead to rows are not: a damaged index page can misdirect a lookup, so that a
/// query by service returns some of its items and silently misses the rest (the torture bench's bit
/// flips found exactly this). With the shim, any damage to any page of the database file is an error
/// (`SQLITE_IOERR_DATA`, reported as an integrity failure) the moment SQLite reads the page.
///
/// - The checksum is two CRC-32C lanes (64 bits, `hardtack_page_checksum` in `CCRC32C`, with the
///   CPU's CRC-32C instruction) of the page's first `pageSize - 8` bytes, each lane starting from the
///   page number, written whenever SQLite writes a whole page to the database file (in WAL mode: at
///   checkpoints). Each lane detects every error of up to 3 bits and every burst of up to 32 bits in
///   it; together they miss a random error with probability 2^-64. Pages stamped before (SipHash-2-4
///   keyed with the page number, from cc51112 on) still read: a page that fails the CRC is accepted
///   when it carries that older checksum instead, and is stamped with the CRC when next written. The
///   SipHash is computed only for such a page, or for a damaged one.
/// - The checksum detects damage, not forgery: it has no secret key (the rows' encryption and the rows
///   digest are what a forger must defeat).
/// - A database takes part when its header says 8 reserved bytes per page (byte 20); the store asks
///   for that on a new file and upgrades older stores with a `VACUUM` (see `StoreOpener`).
/// - Page 1 with a valid checksum but a header that reserves no bytes is damage (one bit turns 8 into
///   0), not an older store; a page cut short by a truncated file is damage too.
/// - Made for the store's WAL mode. Pages in the write-ahead log are not covered: SQLite checks its
///   frame checksums when it recovers the log (the first open after the last connection closed or
///   crashed), not while connections have it open, and a checkpoint stamps each page it copies into
///   the database file. Damage to the log between those moments is not caught here.
///
/// Only the main database file is wrapped; the log, the shared-memory index and temporary files go
/// straight to the default VFS.
enum SQLiteChecksumVFS {
    /// The name the shim is registered under.
    static let name = "hardtack-checksum"
    /// Bytes reserved at the end of every page for the checksum.
    static let reservedBytes: Int32 = 8
    /// `SQLITE_IOERR_DATA` (a C macro Swift cannot import): a page failed its checksum.
    static let damagedPageCode: Int32 = SQLITE_IOERR | (32 << 8)

    /// Registers the shim (once per process, on first use) and returns its name for `sqlite3_open_v2`.
    static var registeredName: String {
        precondition(registered, "the checksum VFS could not be registered")
        return name
    }

    /// Registration runs once: Swift initializes a static constant exactly once, thread-safely.
    private static let registered: Bool = register()

    /// What the shim's callbacks reach through `pAppData`: the VFS underneath and the file methods.
    private struct Shim {
        let original: UnsafeMutablePointer<sqlite3_vfs>
        let methods: UnsafeMutablePointer<sqlite3_io_methods>
    }

    /// A wrapped file is this header followed by the default VFS's own file object:
    /// `sqlite3_file` (the methods pointer), then a 32-bit flag (checksums on), padded to 16 bytes.
    private static let headerSize = 16

    private static func register() -> Bool {
        guard let original = sqlite3_vfs_find(nil) else { return false }
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: fileMethods())
        let shim = UnsafeMutablePointer<Shim>.allocate(capacity: 1)
        shim.initialize(to: Shim(original: original, methods: methods))
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: passThroughVFS())
        vfs.pointee.iVersion = min(original.pointee.iVersion, 3)
        vfs.pointee.szOsFile = Int32(headerSize) + original.pointee.szOsFile
        vfs.pointee.mxPathname = original.pointee.mxPathname
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.pAppData = UnsafeMutableRawPointer(shim)
        // The VFS, its name, methods and shim are never freed: SQLite may use them until the process ends.
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }

    // MARK: Files

    private static func inner(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file!) + headerSize).assumingMemoryBound(to: sqlite3_file.self)
    }

    private static func checksumsOn(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<UInt32> {
        (UnsafeMutableRawPointer(file!) + MemoryLayout<sqlite3_file>.stride).assumingMemoryBound(to: UInt32.self)
    }

    private static func original(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs> {
        vfs!.pointee.pAppData.assumingMemoryBound(to: Shim.self).pointee.original
    }

    /// Opens the main database file wrapped; every other file unwrapped, with the default VFS.
    private static let open:
        @convention(c) (
            UnsafeMutablePointer<sqlite3_vfs>?, sqlite3_filename?, UnsafeMutablePointer<sqlite3_file>?, Int32,
            UnsafeMutablePointer<Int32>?
        ) -> Int32 = { vfs, name, file, flags, outFlags in
            let shim = vfs!.pointee.pAppData.assumingMemoryBound(to: Shim.self).pointee
            let original = shim.original
            guard flags & SQLITE_OPEN_MAIN_DB != 0 else {
                return original.pointee.xOpen(original, name, file, flags, outFlags)
            }
            file!.pointee.pMethods = nil
            SQLiteChecksumVFS.checksumsOn(file).pointee = 0
            let code = original.pointee.xOpen(original, name, SQLiteChecksumVFS.inner(file), flags, outFlags)
            // SQLite calls xClose only on a file whose methods pointer is set.
            if code == SQLITE_OK { file!.pointee.pMethods = UnsafePointer(shim.methods) }
            return code
        }

    /// Whether a read or write of `amount` bytes at `offset` is one whole page of the database.
    private static func isWholePage(_ amount: Int32, at offset: sqlite3_int64) -> Bool {
        amount >= 512 && amount <= 65536 && amount & (amount - 1) == 0 && offset % sqlite3_int64(amount) == 0
    }

    /// Reads the header's reserved-bytes field when `bytes` start the file, and turns checksums on or
    /// off for the file accordingly.
    private static func noteHeader(
        _ file: UnsafeMutablePointer<sqlite3_file>?, _ bytes: UnsafeRawPointer, _ amount: Int32, _ offset: sqlite3_int64
    ) {
        guard offset == 0, amount >= 100 else { return }
        let magic = "SQLite format 3\0".utf8
        guard zip(magic, UnsafeRawBufferPointer(start: bytes, count: 16)).allSatisfy({ $0 == $1 }) else { return }
        SQLiteChecksumVFS.checksumsOn(file).pointee = bytes.load(fromByteOffset: 20, as: UInt8.self) == UInt8(SQLiteChecksumVFS.reservedBytes) ? 1 : 0
    }

    /// The page checksum (two CRC-32C lanes, see `hardtack_page_checksum`) of the page without its
    /// last 8 bytes, keyed with the page number so that a page written at the wrong place fails too,
    /// into `output` (8 bytes, little-endian).
    private static func checksum(
        of page: UnsafeRawPointer, size: Int, offset: sqlite3_int64, into output: UnsafeMutableRawPointer
    ) {
        let pageNumber = UInt32(truncatingIfNeeded: offset / sqlite3_int64(size) + 1)
        let sum = hardtack_page_checksum(page, size - Int(reservedBytes), pageNumber)
        output.storeBytes(of: sum.littleEndian, as: UInt64.self)
    }

    /// The checksum pages carried before CRC-32C: SipHash-2-4 (libsodium's `crypto_shorthash`) of the
    /// page without its last 8 bytes, keyed with the page number, into `output`.
    private static func legacyChecksum(
        of page: UnsafeRawPointer, size: Int, offset: sqlite3_int64, into output: UnsafeMutablePointer<UInt8>
    ) {
        var key = (UInt64(offset / sqlite3_int64(size) + 1).littleEndian, UInt64(0))
        withUnsafeBytes(of: &key) { key in
            _ = crypto_shorthash(
                output, page.assumingMemoryBound(to: UInt8.self), UInt64(size - Int(SQLiteChecksumVFS.reservedBytes)),
                key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    private static let read:
        @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutableRawPointer?, Int32, sqlite3_int64) -> Int32 = {
            file, buffer, amount, offset in SQLiteChecksumVFS.checkedRead(file, buffer, amount, offset)
        }

    private static let write:
        @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeRawPointer?, Int32, sqlite3_int64) -> Int32 = {
            file, buffer, amount, offset in SQLiteChecksumVFS.stampedWrite(file, buffer, amount, offset)
        }

    /// `SQLITE_IOERR_SHORT_READ`: a read past the end of the file (SQLite zero-fills the rest).
    private static let shortReadCode: Int32 = SQLITE_IOERR | (2 << 8)

    /// Reads through the default VFS, then checks a whole page's checksum.
    private static func checkedRead(
        _ file: UnsafeMutablePointer<sqlite3_file>?, _ buffer: UnsafeMutableRawPointer?, _ amount: Int32,
        _ offset: sqlite3_int64
    ) -> Int32 {
        let below = inner(file)
        let code = below.pointee.pMethods.pointee.xRead(below, buffer, amount, offset)
        guard let buffer, code == SQLITE_OK || code == shortReadCode else { return code }
        if code == shortReadCode {
            // A page cut short by a truncated file would be used zero-filled: damage, when the file
            // has checksums and the page begins inside it.
            guard isWholePage(amount, at: offset), checksumsOn(file, offset: offset) else { return code }
            var size: sqlite3_int64 = 0
            let sized = below.pointee.pMethods.pointee.xFileSize(below, &size) == SQLITE_OK
            return sized && offset < size ? damagedPageCode : code
        }
        noteHeader(file, buffer, amount, offset)
        guard isWholePage(amount, at: offset) else { return code }
        if offset == 0, checksumsOn(file).pointee == 0, wasStamped(firstPage: buffer, size: Int(amount)) {
            // Page 1 carries a valid checksum, yet its header says no bytes are reserved: the header
            // itself was damaged (one bit turns 8 into 0).
            return damagedPageCode
        }
        guard checksumsOn(file, offset: offset) else { return code }
        return matches(buffer, size: Int(amount), offset: offset) ? SQLITE_OK : damagedPageCode
    }

    /// Writes through the default VFS; a whole page of a file with checksums is stamped first.
    private static func stampedWrite(
        _ file: UnsafeMutablePointer<sqlite3_file>?, _ buffer: UnsafeRawPointer?, _ amount: Int32,
        _ offset: sqlite3_int64
    ) -> Int32 {
        let below = inner(file)
        guard let buffer else { return below.pointee.pMethods.pointee.xWrite(below, buffer, amount, offset) }
        noteHeader(file, buffer, amount, offset)
        guard isWholePage(amount, at: offset), checksumsOn(file, offset: offset) else {
            return below.pointee.pMethods.pointee.xWrite(below, buffer, amount, offset)
        }
        // Stamp a copy: the buffer is SQLite's (a cached page, or a log frame being checkpointed).
        return withUnsafeTemporaryAllocation(byteCount: Int(amount), alignment: 8) { copy in
            let page = copy.baseAddress!
            page.copyMemory(from: buffer, byteCount: Int(amount))
            checksum(of: page, size: Int(amount), offset: offset, into: page + Int(amount - reservedBytes))
            return below.pointee.pMethods.pointee.xWrite(below, page, amount, offset)
        }
    }

    /// Whether the file has checksums. While its flag says no, the header is read again from the file
    /// before each page past the first: another connection may have upgraded the file (a `VACUUM`
    /// that reached the file through a checkpoint) since this one last read page 1. Only a file
    /// without checksums pays for that read.
    private static func checksumsOn(_ file: UnsafeMutablePointer<sqlite3_file>?, offset: sqlite3_int64) -> Bool {
        if checksumsOn(file).pointee != 0 { return true }
        guard offset > 0 else { return false }
        let below = inner(file)
        return withUnsafeTemporaryAllocation(byteCount: 100, alignment: 8) { header in
            guard below.pointee.pMethods.pointee.xRead(below, header.baseAddress, 100, 0) == SQLITE_OK else {
                return false
            }
            noteHeader(file, header.baseAddress!, 100, 0)
            return checksumsOn(file).pointee != 0
        }
    }

    /// Whether `page`'s last 8 bytes are its checksum (or, on a page stamped before CRC-32C, its older
    /// SipHash-2-4 checksum).
    private static func matches(_ page: UnsafeRawPointer, size: Int, offset: sqlite3_int64) -> Bool {
        let stored = page + (size - Int(reservedBytes))
        var expected: UInt64 = 0
        checksum(of: page, size: size, offset: offset, into: &expected)
        if memcmp(stored, &expected, Int(reservedBytes)) == 0 { return true }
        return withUnsafeMutableBytes(of: &expected) { sum in
            let sum = sum.baseAddress!.assumingMemoryBound(to: UInt8.self)
            legacyChecksum(of: page, size: size, offset: offset, into: sum)
            return memcmp(stored, sum, Int(reservedBytes)) == 0
        }
    }

    /// Whether page 1, with its reserved-bytes field put back to 8, matches its last 8 bytes: a page
    /// stamped by this shim whose header was damaged since.
    private static func wasStamped(firstPage: UnsafeRawPointer, size: Int) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { copy in
            copy.baseAddress!.copyMemory(from: firstPage, byteCount: size)
            copy[20] = UInt8(reservedBytes)
            return matches(UnsafeRawPointer(copy.baseAddress!), size: size, offset: 0)
        }
    }

    /// The wrapped file's methods: reads and writes checked and stamped, everything else passed down.
    private static func fileMethods() -> sqlite3_io_methods {
        var methods = sqlite3_io_methods()
        methods.iVersion = 3
        methods.xClose = { file in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xClose(below)
        }
        methods.xRead = read
        methods.xWrite = write
        methods.xTruncate = { file, size in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xTruncate(below, size)
        }
        methods.xSync = { file, flags in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xSync(below, flags)
        }
        methods.xFileSize = { file, size in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xFileSize(below, size)
        }
        methods.xLock = { file, lock in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xLock(below, lock)
        }
        methods.xUnlock = { file, lock in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xUnlock(below, lock)
        }
        methods.xCheckReservedLock = { file, result in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xCheckReservedLock(below, result)
        }
        methods.xFileControl = { file, operation, argument in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xFileControl(below, operation, argument)
        }
        methods.xSectorSize = { file in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xSectorSize(below)
        }
        methods.xDeviceCharacteristics = { file in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xDeviceCharacteristics(below)
        }
        methods.xShmMap = { file, region, size, extend, address in
            let below = SQLiteChecksumVFS.inner(file)
            guard let map = below.pointee.pMethods.pointee.xShmMap else { return SQLITE_IOERR }
            return map(below, region, size, extend, address)
        }
        methods.xShmLock = { file, offset, count, flags in
            let below = SQLiteChecksumVFS.inner(file)
            guard let lock = below.pointee.pMethods.pointee.xShmLock else { return SQLITE_IOERR }
            return lock(below, offset, count, flags)
        }
        methods.xShmBarrier = { file in
            let below = SQLiteChecksumVFS.inner(file)
            below.pointee.pMethods.pointee.xShmBarrier?(below)
        }
        methods.xShmUnmap = { file, delete in
            let below = SQLiteChecksumVFS.inner(file)
            guard let unmap = below.pointee.pMethods.pointee.xShmUnmap else { return SQLITE_OK }
            return unmap(below, delete)
        }
        // No memory-mapped pages: every page must come through `read`, where it is checked.
        methods.xFetch = { _, _, _, page in
            page?.pointee = nil
            return SQLITE_OK
        }
        methods.xUnfetch = { file, offset, page in
            let below = SQLiteChecksumVFS.inner(file)
            guard let unfetch = below.pointee.pMethods.pointee.xUnfetch else { return SQLITE_OK }
            return unfetch(below, offset, page)
        }
        return methods
    }

    /// A VFS whose every method but `xOpen` passes to the VFS underneath.
    private static func passThroughVFS() -> sqlite3_vfs {
        var vfs = sqlite3_vfs()
        vfs.xOpen = open
        vfs.xDelete = { vfs, name, syncDirectory in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xDelete(below, name, syncDirectory)
        }
        vfs.xAccess = { vfs, name, flags, result in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xAccess(below, name, flags, result)
        }
        vfs.xFullPathname = { vfs, name, size, output in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xFullPathname(below, name, size, output)
        }
        vfs.xDlOpen = { vfs, name in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xDlOpen(below, name)
        }
        vfs.xDlError = { vfs, size, message in
            let below = SQLiteChecksumVFS.original(vfs)
            below.pointee.xDlError(below, size, message)
        }
        vfs.xDlSym = { vfs, handle, symbol in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xDlSym(below, handle, symbol)
        }
        vfs.xDlClose = { vfs, handle in
            let below = SQLiteChecksumVFS.original(vfs)
            below.pointee.xDlClose(below, handle)
        }
        vfs.xRandomness = { vfs, size, output in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xRandomness(below, size, output)
        }
        vfs.xSleep = { vfs, microseconds in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xSleep(below, microseconds)
        }
        vfs.xCurrentTime = { vfs, time in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xCurrentTime(below, time)
        }
        vfs.xGetLastError = { vfs, size, message in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xGetLastError(below, size, message)
        }
        vfs.xCurrentTimeInt64 = { vfs, time in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xCurrentTimeInt64(below, time)
        }
        vfs.xSetSystemCall = { vfs, name, call in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xSetSystemCall(below, name, call)
        }
        vfs.xGetSystemCall = { vfs, name in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xGetSystemCall(below, name)
        }
        vfs.xNextSystemCall = { vfs, name in
            let below = SQLiteChecksumVFS.original(vfs)
            return below.pointee.xNextSystemCall(below, name)
        }
        return vfs
    }
}
