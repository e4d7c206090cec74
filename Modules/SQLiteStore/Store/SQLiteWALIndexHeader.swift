import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// SQLite's WAL-index header, read straight from the store's shared memory (the `-shm` file) as SQLite has
/// mapped it for one connection, and as SQLite's own readers read it (the WAL-index format,
/// sqlite.org/walformat.html): its 48 bytes change with every commit by any connection of any process (a
/// change counter, the frame count, the last frame's checksum, the salts), so whether anything was committed
/// since it was last read is known with no lock and no system call, where `PRAGMA data_version` takes
/// SQLite's file locks (two to four `fcntl` calls, more while the log holds frames not yet copied back) and a
/// mutex the process's connections share.
///
/// The mapping is the connection's own (``SQLiteConnection/walIndex``): no descriptor of the file is opened
/// here, since closing one would let go of every lock the process holds on the file, and it lasts while the
/// connection is open, which the caller sees to.
final class SQLiteWALIndexHeader {
    /// One read of the header: its six 64-bit words.
    struct Snapshot: Equatable {
        let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

        static func == (left: Snapshot, right: Snapshot) -> Bool {
            left.words.0 == right.words.0 && left.words.1 == right.words.1 && left.words.2 == right.words.2
                && left.words.3 == right.words.3 && left.words.4 == right.words.4 && left.words.5 == right.words.5
        }
    }

    /// The header's version field as SQLite writes it (`WALINDEX_MAX_VERSION`).
    static let version: UInt32 = 3_007_000

    private let mapping: UnsafeRawPointer

    /// The header in `connection`'s mapping of the WAL-index, or `nil` when it has none mapped (it has
    /// not read the store yet) or the header is not of the version this reads (then the caller asks SQLite).
    /// `connection` must stay open while the header is read.
    init?(of connection: SQLiteConnection) {
        guard let mapped = connection.walIndex else { return nil }
        mapping = mapped
        // A version this code does not know, or a header SQLite has not written yet: not read here.
        guard let first = snapshot(), UInt32(truncatingIfNeeded: first.words.0) == Self.version,
            UInt8(truncatingIfNeeded: first.words.1 >> 32) == 1
        else { return nil }
    }

    /// The header as a writer last left it, or `nil` when one was writing it at that moment (read again).
    func snapshot() -> Snapshot? {
        var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        let consistent = withUnsafeMutableBytes(of: &bytes) { out in
            hardtack_sqlite3_wal_index_header(mapping, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return consistent == 1 ? Snapshot(words: bytes) : nil
    }
}
