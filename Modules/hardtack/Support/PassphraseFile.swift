#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Data
import Domain

/// Reads a passphrase from a file: its first line, without the newline, straight into wiped memory.
enum PassphraseFile {
    /// The most a passphrase file may hold; anything longer is not a passphrase file.
    static let maxBytes = 64 * 1024

    /// The first line of the file at `path`, without its line ending.
    /// - Throws: ``SecureStoreError/insecurePermissions(path:fix:)`` for a regular file that group or
    ///   others may read, ``SecureStoreError/invalidKeyMaterial(_:)`` when it cannot be read or its first
    ///   line is empty.
    static func readFirstLine(_ path: String) throws(SecureStoreError) -> SecretBytes {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .invalidKeyMaterial("cannot read the passphrase file \(path) (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .invalidKeyMaterial("cannot inspect the passphrase file \(path)")
        }
        // Pipes and process substitutions are private to the caller; only a regular file can be shared.
        if info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o077 != 0 {
            throw .insecurePermissions(
                path: path,
                fix: "group or others can read this passphrase file (mode \(String(info.st_mode & 0o777, radix: 8))). "
                    + "Run `chmod 600 \(path)` and try again.")
        }
        var buffer = [UInt8](repeating: 0, count: maxBytes + 1)
        defer { buffer.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        var total = 0
        while total < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + total, $0.count - total) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .invalidKeyMaterial("cannot read the passphrase file \(path)") }
            if count == 0 { break }
            total += count
            if buffer[..<total].contains(0x0A) { break }
        }
        var end = buffer[..<total].firstIndex(of: 0x0A) ?? total
        guard end <= maxBytes else {
            throw .invalidKeyMaterial("the first line of the passphrase file \(path) is longer than \(maxBytes) bytes")
        }
        if end > 0 && buffer[end - 1] == 0x0D { end -= 1 }
        guard end > 0 else { throw .invalidKeyMaterial("the first line of the passphrase file \(path) is empty") }
        return SecretBytes(buffer[..<end])
    }
}
