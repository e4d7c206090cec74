#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Composition
import Foundation

/// Where `export --to` may write: never over the store it reads (its file, `-wal`, `-shm` or
/// `-journal`), a key file or a passphrase file, and over any other existing file only when asked.
enum ExportTarget {
    /// Why `path` must not be written, or `nil` when it may: `protected` are the files the command
    /// reads (the store and its key or passphrase files, the export's key or passphrase file), compared
    /// after resolving links and by device and inode; an existing file is refused unless `overwrite`.
    static func refusal(_ path: String, store: StoreConfiguration, protected: [String], overwrite: Bool)
        -> String?
    {
        var guarded = protected
        if !StoreConfiguration.isPostgreSQL(store.storePath) {
            guarded += ["", "-wal", "-shm", "-journal"].map { store.storePath + $0 }
        }
        if case .keyFile(let keyFile) = store.key { guarded.append(keyFile) }
        let target = FilePath.resolved(path)
        let targetFile = identity(path)
        for file in guarded where FilePath.resolved(file) == target || (targetFile != nil && identity(file) == targetFile) {
            return "\(path) is \(file), which this command reads; an export never replaces the store, its "
                + "journal files or a key or passphrase file: name another file with --to"
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        guard overwrite else { return "\(path) already exists; name a new file, or give --overwrite to replace it" }
        guard (status.st_mode & S_IFMT) == S_IFREG || (status.st_mode & S_IFMT) == S_IFLNK else {
            return "\(path) exists and is not a regular file; an export replaces only a file"
        }
        return nil
    }

    /// The device and inode of the file `path` names (links followed), or `nil` when there is none.
    private static func identity(_ path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }
}
