import Data
import StoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a store file is opened: read-write as usual, or, for a caller that only reads a store its user
/// cannot write (read-only media, an immutable directory), read-only.
///
/// SQLite in WAL mode needs the shared-memory index (`-shm`) beside the file, even to read. Where that
/// file can be created, a read-only connection makes it; where it cannot, and the log holds nothing
/// (a store closed cleanly has none), the file is opened as immutable: no lock, no log, no index, just
/// the pages, through the same checksum VFS, so every page checksum, the rows digest and the items'
/// authentication are checked as on any other open.
enum SQLiteStoreAccess: Equatable {
    /// Read and write (and create): the normal open.
    case readWrite
    /// Read only; SQLite may still create the `-shm` index (the directory is writable).
    case readOnly
    /// Read only, and nothing beside the file is touched (`immutable=1`): the directory cannot be written
    /// and the log is empty.
    case immutable

    /// The access to open `path` with. A caller that may write gets ``readWrite`` or a clear refusal
    /// when the store cannot be written; one that only reads gets read-only access where needed.
    /// - Throws: ``SecureStoreError/storage(_:)`` of kind `readOnly` (or `permission`) that says writes
    ///   are impossible there, or that a log left by an unclean close cannot be read without writing.
    static func choose(path: String, onlyReads: Bool) throws(SecureStoreError) -> SQLiteStoreAccess {
        let directory = FileSecurity.parentDirectory(of: path)
        guard access(path, F_OK) == 0 else { return .readWrite }  // Created by the normal open.
        let fileError = access(path, W_OK) == 0 ? 0 : errno
        let directoryError = access(directory, W_OK) == 0 ? 0 : errno
        let denied = fileError != 0 ? fileError : directoryError
        guard denied != 0 else { return .readWrite }
        guard onlyReads else {
            throw .storage(
                StorageFailure(
                    backend: "the file system", kind: denied == EACCES ? .permission : .readOnly,
                    message: "the store at \(path) cannot be written (\(reason(denied, fileError: fileError)))",
                    detail: "errno \(denied) on \(fileError != 0 ? path : directory)"))
        }
        if directoryError == 0 { return .readOnly }
        if fileSize(path + "-wal") > 0 {
            // The log holds changes not yet in the file; reading them needs the -shm index.
            if access(path + "-shm", R_OK) == 0 { return .readOnly }
            throw .storage(
                StorageFailure(
                    backend: "the file system", kind: .readOnly,
                    message: "the store at \(path) was not closed cleanly (its last changes are still in its "
                        + "-wal log) and its directory cannot be written, so it cannot be read here; open it once "
                        + "where it can be written",
                    detail: "errno \(directoryError) on \(directory); no -shm beside a non-empty -wal"))
        }
        return .immutable
    }

    /// The name to give SQLite: the path, or for ``immutable`` a `file:` URI with `immutable=1`.
    func fileName(_ path: String) -> String {
        guard self == .immutable else { return path }
        var encoded = "file:"
        for byte in path.utf8 {
            let unreserved =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~")]
                    .contains(byte)
            encoded += unreserved ? String(UnicodeScalar(byte)) : (byte < 16 ? "%0" : "%") + String(byte, radix: 16)
        }
        return encoded + "?immutable=1"
    }

    private static func reason(_ code: Int32, fileError: Int32) -> String {
        switch code {
        case EROFS: "it is on a read-only file system"
        case EACCES: fileError != 0 ? "this user may not write the file" : "this user may not write its directory"
        default: fileError != 0 ? "the file is immutable" : "its directory is immutable"
        }
    }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
