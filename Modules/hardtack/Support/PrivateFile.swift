#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Data
import Domain

/// The first line of a file that may hold a secret (a passphrase, a client secret, a database URI with
/// its password), read straight into wiped memory, refused when group or others may read or change it.
/// ``PassphraseFile`` and ``StoreFile`` name its failures in their own words.
enum PrivateFile {
    /// The most a file's first line may hold.
    static let maxBytes = 64 * 1024

    /// Why the first line cannot be had.
    enum Failure: Error {
        /// `open` failed, with `strerror`'s words.
        case cannotOpen(String)
        /// `fstat` failed.
        case cannotInspect
        /// A regular file that group or others may read or write, with its mode in octal.
        case shared(mode: String)
        /// `read` failed.
        case cannotRead
        /// The first line is longer than ``maxBytes``.
        case tooLong
        /// The first line is empty.
        case empty

        /// What went wrong with `file` (such as "passphrase file") at `path`, for every failure but
        /// ``shared(mode:)``, whose fix each reader words itself.
        func reason(_ file: String, _ path: String) -> String {
            switch self {
            case .cannotOpen(let why): "cannot read the \(file) \(path) (\(why))"
            case .cannotInspect: "cannot inspect the \(file) \(path)"
            case .shared(let mode): "group or others can read or change the \(file) \(path) (mode \(mode))"
            case .cannotRead: "cannot read the \(file) \(path)"
            case .tooLong: "the first line of the \(file) \(path) is longer than \(PrivateFile.maxBytes) bytes"
            case .empty: "the first line of the \(file) \(path) is empty"
            }
        }
    }

    /// The first line of the file at `path`, without its line ending (`\n` or `\r\n`).
    /// - Throws: ``Failure``.
    static func firstLine(_ path: String) throws(Failure) -> SecretBytes {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .cannotInspect }
        // Pipes and process substitutions are private to the caller; only a regular file can be shared.
        if info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o077 != 0 {
            throw .shared(mode: String(info.st_mode & 0o777, radix: 8))
        }
        var buffer = [UInt8](repeating: 0, count: maxBytes + 1)
        defer { buffer.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        var total = 0
        while total < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + total, $0.count - total) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .cannotRead }
            if count == 0 { break }
            total += count
            if buffer[..<total].contains(0x0A) { break }
        }
        var end = buffer[..<total].firstIndex(of: 0x0A) ?? total
        guard end <= maxBytes else { throw .tooLong }
        if end > 0 && buffer[end - 1] == 0x0D { end -= 1 }
        guard end > 0 else { throw .empty }
        return SecretBytes(buffer[..<end])
    }
}
