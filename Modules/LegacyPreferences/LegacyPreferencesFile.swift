#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Data
public import Domain
import Foundation

/// The plaintext preferences file an older version kept tokens in, read for migration and then
/// destroyed: overwritten with zeros and flushed before it is unlinked, so that a kill at any point
/// leaves either the readable file, a file of zeros (which the next run recognizes and deletes), or
/// nothing.
public struct LegacyPreferencesFile: LegacyTokenSource {
    /// The file's path.
    public let path: String

    /// The largest legacy file read: preferences files are small.
    static let maximumBytes = 1 << 20

    /// Points at the legacy file.
    public init(path: String) {
        self.path = path
    }

    /// The tokens in the legacy file, if it exists, read on the store's threads (``StoreThreads``), never
    /// on the caller's.
    public func read() async throws(AuthenticationError) -> LegacyTokens {
        try await StoreThreads.run { () throws(AuthenticationError) in try readBlocking() }
    }

    /// Overwrites the file with zeros, flushes it and deletes it, on the store's threads.
    public func wipeAndDelete() async throws(AuthenticationError) {
        try await StoreThreads.run { () throws(AuthenticationError) in try wipeAndDeleteBlocking() }
    }

    /// The tokens in the legacy file, if it exists, on the caller's thread.
    func readBlocking() throws(AuthenticationError) -> LegacyTokens {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return .absent }
            throw .storageFailed("cannot read the legacy file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .storageFailed("the legacy file \(path) is not a regular file")
        }
        guard Int(info.st_size) <= Self.maximumBytes else {
            throw .invalidLegacyFile("the file is larger than 1 MiB; it is not a preferences file")
        }
        // Read straight into a buffer this function wipes (Foundation's readers keep copies of their own,
        // and leak one for an empty file), never following a link swapped in since the check above.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .storageFailed("cannot read the legacy file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var contents = Data(count: Int(info.st_size) + 1)
        defer { contents.resetBytes(in: 0..<contents.count) }
        var total = 0
        while total < contents.count {
            let count = contents.withUnsafeMutableBytes { buffer in
                readFromDescriptor(descriptor, buffer.baseAddress! + total, buffer.count - total)
            }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .storageFailed("cannot read the legacy file \(path)") }
            if count == 0 { break }
            total += count
        }
        // One byte more than the size said means it grew while being read: not a preferences file to trust.
        guard total <= Int(info.st_size) else {
            throw .invalidLegacyFile("the file changed while it was read; try again")
        }
        return try LegacyPreferences.parse(contents.prefix(total))
    }

    /// Overwrites the legacy file with zeros, then deletes it, on the caller's thread.
    func wipeAndDeleteBlocking() throws(AuthenticationError) {
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return }
            throw .storageFailed("cannot open the legacy file \(path) to wipe it: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        fstat(descriptor, &info)
        let zeros = [UInt8](repeating: 0, count: 4096)
        var remaining = Int(info.st_size)
        var failed = false
        while remaining > 0 && !failed {
            let written = zeros.withUnsafeBytes { write(descriptor, $0.baseAddress, min(remaining, $0.count)) }
            if written <= 0 { failed = true } else { remaining -= written }
        }
        failed = failed || fsync(descriptor) != 0
        close(descriptor)
        if failed { throw .storageFailed("could not overwrite the legacy file \(path); delete it by hand") }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .storageFailed("the legacy file \(path) was wiped but could not be deleted; delete it by hand")
        }
        // Flush the directory entry too, so the deletion survives a power cut.
        let directory = open(Self.directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// The directory that holds `path` (`.` for a bare name), whose entry is flushed after a deletion.
    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// `read(2)`, out of ``LegacyPreferencesFile``, whose own `read()` would shadow it.
private func readFromDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
