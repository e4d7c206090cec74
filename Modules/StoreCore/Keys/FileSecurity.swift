#if canImport(Glibc)
    package import Glibc
#elseif canImport(Darwin)
    package import Darwin
#endif
package import Data

/// Creates and checks the store's directory and files: the directory 0700, every file 0600 whatever
/// the umask, owned by this user, and never reached through a symbolic link.
package enum FileSecurity {
    /// Creates `directory` (and missing parents) as 0700, or checks an existing one. A symbolic link
    /// to a directory of this user's that only they can open (a store directory kept on another disk,
    /// say) is followed; any other link is refused, naming where it leads.
    package static func prepareDirectory(_ directory: String) throws(SecureStoreError) {
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard errno == ENOENT else { throw posixError("cannot inspect \(directory)") }
            let parent = parentDirectory(of: directory)
            if parent != directory, access(parent, F_OK) != 0 {
                try createParents(parent)
            }
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                throw posixError("cannot create the store directory \(directory)")
            }
            _ = chmod(directory, 0o700)
            guard lstat(directory, &info) == 0 else { throw posixError("cannot inspect \(directory)") }
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            try checkLinkedDirectory(directory)
            return
        }
        try checkOwnedAndPrivate(directory, info, expectDirectory: true)
    }

    /// Checks an existing directory as ``prepareDirectory(_:)`` does, creating nothing; a missing one passes.
    package static func checkDirectoryIfPresent(_ directory: String) throws(SecureStoreError) {
        var info = stat()
        guard lstat(directory, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFLNK {
            try checkLinkedDirectory(directory)
        } else {
            try checkOwnedAndPrivate(directory, info, expectDirectory: true)
        }
    }

    /// A directory reached through a symbolic link: what it leads to must be a directory this user owns
    /// and only they can open.
    private static func checkLinkedDirectory(_ link: String) throws(SecureStoreError) {
        guard let real = realpath(link, nil) else {
            throw .insecurePermissions(
                path: link, fix: "it is a symbolic link that leads to no directory. Remove the link, or create the "
                    + "directory it names with mode 700.")
        }
        defer { free(real) }
        let target = String(cString: real)
        var info = stat()
        guard lstat(target, &info) == 0 else { throw posixError("cannot inspect \(target)") }
        try checkOwnedAndPrivate(target, info, expectDirectory: true)
    }

    /// Creates `path` as an empty 0600 file if it does not exist (when `creating`), then checks it and
    /// any `-wal`, `-shm` companions.
    package static func prepareStoreFile(_ path: String, creating: Bool = true) throws(SecureStoreError) {
        if creating { try createPrivateFile(path, contents: nil) }
        for suffix in ["", "-wal", "-shm"] {
            var info = stat()
            if lstat(path + suffix, &info) == 0 {
                try checkOwnedAndPrivate(path + suffix, info, expectDirectory: false)
            }
        }
    }

    /// Creates `path` with mode 0600 (exclusively, never following a link) and writes `contents`.
    /// Does nothing when the file exists and `contents` is `nil`.
    /// - Returns: whether the file was created.
    @discardableResult
    package static func createPrivateFile(_ path: String, contents: [UInt8]?) throws(SecureStoreError) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            if errno == EEXIST && contents == nil { return false }
            throw posixError("cannot create \(path)")
        }
        defer { close(descriptor) }
        _ = fchmod(descriptor, 0o600)
        if let contents {
            let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == contents.count, fsync(descriptor) == 0 else {
                unlink(path)
                throw posixError("cannot write \(path)")
            }
        }
        return true
    }

    /// Reads a small private file (a key file, a passphrase file), checking it first.
    package static func readPrivateFile(_ path: String, maxBytes: Int) throws(SecureStoreError) -> [UInt8] {
        // Open first (never through a link), then check what was opened: checking a path and then
        // opening it would let the file be swapped in between.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ELOOP {
                throw .insecurePermissions(path: path, fix: "it is a symbolic link. Name the real file instead.")
            }
            throw posixError("cannot open \(path)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw posixError("cannot inspect \(path)") }
        try checkOwnedAndPrivate(path, info, expectDirectory: false)
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + total, $0.count - total) }
            if count < 0 { throw posixError("cannot read \(path)") }
            if count == 0 { break }
            total += count
        }
        bytes.removeSubrange(total...)
        return bytes
    }

    /// Refuses a path that is a symbolic link, of the wrong type, owned by someone else, or open to
    /// group or others; the error says exactly how to fix it.
    package static func checkOwnedAndPrivate(_ path: String, _ info: stat, expectDirectory: Bool) throws(SecureStoreError) {
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK {
            throw .insecurePermissions(
                path: path, fix: "it is a symbolic link. Name the real file or directory instead.")
        }
        if expectDirectory ? type != S_IFDIR : type != S_IFREG {
            throw .insecurePermissions(
                path: path, fix: "it is not a \(expectDirectory ? "directory" : "regular file").")
        }
        if expectDirectory, info.st_uid != geteuid() || info.st_mode & 0o077 != 0, isShared(path, info) {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw .insecurePermissions(
                path: path,
                fix: "it is not a directory to make private (mode \(mode), owner \(info.st_uid)). "
                    + "Keep the store in a directory of its own instead: a path whose directory does not exist yet, "
                    + "such as \(path == "/" ? "" : path)/hardtack-\(geteuid())/keychain.db (the store creates it with "
                    + "mode 700).")
        }
        if info.st_uid != geteuid() {
            throw .insecurePermissions(
                path: path,
                fix: "it belongs to user \(info.st_uid), not to you (\(geteuid())). Run as its owner, or "
                    + "`chown \(geteuid()) \(path)` if you are sure it is yours.")
        }
        if info.st_mode & 0o077 != 0 {
            let mode = expectDirectory ? "700" : "600"
            throw .insecurePermissions(
                path: path,
                fix: "group or others can access it (mode \(String(info.st_mode & 0o777, radix: 8))). "
                    + "Run `chmod \(mode) \(path)` and try again.")
        }
    }

    /// Whether a directory is shared by design (never to be made private): sticky or writable by
    /// others (`/tmp`), the root or a top-level directory, or the home directory. A private directory of
    /// another user is not shared but someone else's: the message then says whose, and a store is never
    /// suggested inside it (its owner could replace anything there).
    private static func isShared(_ path: String, _ info: stat) -> Bool {
        let components = path.split(separator: "/").count
        let home = getenv("HOME").map { String(cString: $0) }
        return info.st_mode & S_ISVTX != 0 || info.st_mode & 0o002 != 0 || components <= 1 || path == home
    }

    /// Prepares the store's directory and returns the store path with that directory resolved to its
    /// real location: symbolic links among the directories above the store (a symlinked home, say)
    /// are followed, while the store file itself is never reached through a link.
    package static func resolveStorePath(_ path: String) throws(SecureStoreError) -> String {
        let directory = parentDirectory(of: path)
        if access(directory, F_OK) != 0 { try prepareDirectory(directory) }
        guard let real = realpath(directory, nil) else { throw posixError("cannot resolve \(directory)") }
        defer { free(real) }
        let resolved = String(cString: real)
        try prepareDirectory(resolved)
        let leaf = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        return (resolved == "/" ? "" : resolved) + "/" + leaf
    }

    /// Flushes a directory's entries to disk, so a file just created or renamed in it survives a
    /// power cut.
    package static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// The directory part of `path` (`.` for a bare name).
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func createParents(_ directory: String) throws(SecureStoreError) {
        let parent = parentDirectory(of: directory)
        if parent != directory, access(parent, F_OK) != 0 { try createParents(parent) }
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
            throw posixError("cannot create \(directory)")
        }
    }

    private static func posixError(_ what: String) -> SecureStoreError {
        .storage(.posix(what, errno: errno))
    }
}
