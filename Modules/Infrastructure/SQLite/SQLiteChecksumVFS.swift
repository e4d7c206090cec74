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
/// - The checksum is BLAKE2b-64 of the page number and the page's first `pageSize - 8` bytes, written
///   whenever SQLite writes a whole page to the database file (in WAL mode: at checkpoints).
/// - A database takes part when its header says 8 reserved bytes per page (byte 20); the store asks
///   for that on a new file and upgrades older stores with a `VACUUM` (see `StoreOpener`).
/// - Pages in the write-ahead log are not covered by this shim: SQLite checksums every log frame and
///   drops a damaged frame and all later ones on recovery, and a checkpoint re-stamps each page it
///   copies into the database file.
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

    /// BLAKE2b-64 of the page without its last 8 bytes, keyed with the page number (so a page written
    /// at the wrong place fails too), into `output`.
    private static func checksum(
        of page: UnsafeRawPointer, size: Int, offset: sqlite3_int64, into output: UnsafeMutablePointer<UInt8>
    ) {
        var key = (UInt64(offset / sqlite3_int64(size) + 1).littleEndian, UInt64(0))
        withUnsafeBytes(of: &key) { key in
            _ = crypto_generichash(
                output, 8, page.assumingMemoryBound(to: UInt8.self), UInt64(size - Int(SQLiteChecksumVFS.reservedBytes)),
                key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
        }
    }

    private static let read:
        @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutableRawPointer?, Int32, sqlite3_int64) -> Int32 = {
            file, buffer, amount, offset in
            let below = SQLiteChecksumVFS.inner(file)
            let code = below.pointee.pMethods.pointee.xRead(below, buffer, amount, offset)
            guard code == SQLITE_OK, let buffer else { return code }
            SQLiteChecksumVFS.noteHeader(file, buffer, amount, offset)
            guard SQLiteChecksumVFS.checksumsOn(file).pointee != 0, SQLiteChecksumVFS.isWholePage(amount, at: offset) else { return code }
            var expected: (UInt64) = 0
            return withUnsafeMutableBytes(of: &expected) { sum in
                let sum = sum.baseAddress!.assumingMemoryBound(to: UInt8.self)
                SQLiteChecksumVFS.checksum(of: buffer, size: Int(amount), offset: offset, into: sum)
                let stored = buffer + Int(amount - SQLiteChecksumVFS.reservedBytes)
                return memcmp(stored, sum, Int(SQLiteChecksumVFS.reservedBytes)) == 0 ? SQLITE_OK : SQLiteChecksumVFS.damagedPageCode
            }
        }

    private static let write:
        @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeRawPointer?, Int32, sqlite3_int64) -> Int32 = {
            file, buffer, amount, offset in
            let below = SQLiteChecksumVFS.inner(file)
            guard let buffer else { return below.pointee.pMethods.pointee.xWrite(below, buffer, amount, offset) }
            SQLiteChecksumVFS.noteHeader(file, buffer, amount, offset)
            guard SQLiteChecksumVFS.checksumsOn(file).pointee != 0, SQLiteChecksumVFS.isWholePage(amount, at: offset) else {
                return below.pointee.pMethods.pointee.xWrite(below, buffer, amount, offset)
            }
            // Stamp a copy: the buffer is SQLite's (a cached page, or a log frame being checkpointed).
            return withUnsafeTemporaryAllocation(byteCount: Int(amount), alignment: 8) { copy in
                let page = copy.baseAddress!
                page.copyMemory(from: buffer, byteCount: Int(amount))
                let sum = (page + Int(amount - SQLiteChecksumVFS.reservedBytes)).assumingMemoryBound(to: UInt8.self)
                SQLiteChecksumVFS.checksum(of: page, size: Int(amount), offset: offset, into: sum)
                return below.pointee.pMethods.pointee.xWrite(below, page, amount, offset)
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
            return below.pointee.pMethods.pointee.xShmMap(below, region, size, extend, address)
        }
        methods.xShmLock = { file, offset, count, flags in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xShmLock(below, offset, count, flags)
        }
        methods.xShmBarrier = { file in
            let below = SQLiteChecksumVFS.inner(file)
            below.pointee.pMethods.pointee.xShmBarrier(below)
        }
        methods.xShmUnmap = { file, delete in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xShmUnmap(below, delete)
        }
        // No memory-mapped pages: every page must come through `read`, where it is checked.
        methods.xFetch = { _, _, _, page in
            page?.pointee = nil
            return SQLITE_OK
        }
        methods.xUnfetch = { file, offset, page in
            let below = SQLiteChecksumVFS.inner(file)
            return below.pointee.pMethods.pointee.xUnfetch(below, offset, page)
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
