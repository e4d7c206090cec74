import Data
import Foundation
import StoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Making a new store file so that no command ever makes a store over a file that is already there:
/// the store (its tables, header and empty rows digest) is built in a private temporary file beside
/// the path, then linked into place with `link(2)`, which fails rather than replace an existing name.
/// A file at the path is therefore always a whole store (or damage): an empty one is never a store in
/// the making, and two processes making the same store at once end with one store, the other opening it.
enum SQLiteStoreCreation {
    /// A new store's header and keys, for the open that made it.
    struct Created {
        /// The header written into the new store.
        let header: StoreHeader
        /// The keys of the master key wrapped in that header.
        let keys: ItemKeys
    }

    /// Makes a store at `path` when no file is there; `nil` when a file is there, or appeared there
    /// first (another process's store: open it as any existing store).
    static func createIfAbsent(path: String, keySource: KeySource, options: StoreOptions) throws(SecureStoreError)
        -> Created?
    {
        guard access(path, F_OK) != 0 else { return nil }
        let (header, record, keys) = try KeyHierarchy.newStore(keySource: keySource, options: options)
        let directory = FileSecurity.parentDirectory(of: path)
        let leaf = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let suffix = Sodium.randomBytes(8).map { String($0, radix: 16) }.joined()
        let temporary = directory + "/." + leaf + ".creating-" + suffix
        defer {
            for extra in ["", "-wal", "-shm", "-journal"] { unlink(temporary + extra) }
        }
        try build(temporary, record: record, emptyDigest: try RowsDigest.empty.stored(.store, keys: keys))
        // The anchor before the store is in place: no open of the new store ever finds it missing.
        if let anchor = options.rollbackAnchor, RowsDigest.carriesGeneration(.store, keys: keys) {
            try RollbackAnchorFile(path: anchor.path, storeID: header.storeID).advance(to: 0)
        }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return nil }
            throw .storage(.posix("cannot create the store \(path)", errno: errno))
        }
        FileSecurity.syncDirectory(directory)
        return Created(header: header, keys: keys)
    }

    /// Writes a whole new store into `temporary` (created here, mode 0600) and closes it, its log
    /// checkpointed into the file.
    private static func build(_ temporary: String, record: HeaderRecord, emptyDigest: [UInt8]) throws(SecureStoreError) {
        try FileSecurity.createPrivateFile(temporary, contents: [])
        let connection = try SQLiteConnection(path: temporary, access: .readWrite)
        // Room for a checksum on every page before the first page is written.
        connection.reservePageChecksums()
        guard try connection.scalarText("PRAGMA journal_mode = WAL")?.lowercased() == "wal" else {
            throw .storage(
                StorageFailure(
                    backend: "SQLite", kind: .other, message: "the file system does not support SQLite's write-ahead log"))
        }
        try connection.execute("PRAGMA synchronous = FULL")
        try connection.beginImmediate()
        do throws(SecureStoreError) {
            try SQLiteSchema.create(record, emptyDigest: emptyDigest, connection)
            try connection.commit()
        } catch {
            try? connection.rollback()
            throw error
        }
        try connection.checkpointTruncate()
    }
}
