#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Data
import Domain
import Foundation

/// Reads the store's location from a file (`--store-file`): its first line, so that a PostgreSQL URI's
/// password stays off the command line, where other users read it in `/proc/PID/cmdline`.
enum StoreFile {
    /// The most a store file may hold before its first line ends.
    static let maxBytes = 64 * 1024

    /// The first line of the file at `path`, without its line ending.
    /// - Throws: ``CommandFailure/store(_:)`` with ``SecureStoreError/insecurePermissions(path:fix:)`` for
    ///   a regular file that group or others may read or write; ``CommandFailure/usage(_:)`` when it
    ///   cannot be read or its first line is empty or too long.
    static func readFirstLine(_ path: String) throws(CommandFailure) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .usage("cannot read the store file \(path) (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .usage("cannot inspect the store file \(path)") }
        // Pipes and process substitutions are private to the caller; only a regular file can be shared.
        if info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o077 != 0 {
            throw .store(
                .insecurePermissions(
                    path: path,
                    fix: "group or others can read or change this store file (mode \(String(info.st_mode & 0o777, radix: 8))), "
                        + "which may hold a database password. Run `chmod 600 \(path)` and try again."))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer {
            chunk.withUnsafeMutableBytes { SecretBytes.wipe($0) }
            bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) }
        }
        while !bytes.contains(0x0A) && bytes.count <= maxBytes {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .usage("cannot read the store file \(path)") }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        var end = bytes.firstIndex(of: 0x0A) ?? bytes.count
        guard end <= maxBytes else { throw .usage("the first line of the store file \(path) is longer than \(maxBytes) bytes") }
        if end > 0 && bytes[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: bytes[..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { throw .usage("the first line of the store file \(path) is empty") }
        return line
    }
}
