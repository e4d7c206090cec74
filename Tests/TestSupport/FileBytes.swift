#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// Reads and writes whole files as bytes, for tests that inspect or damage store files.
public enum FileBytes {
    /// The file's bytes, or an empty array when it does not exist. Read with POSIX calls: Foundation's
    /// `Data(contentsOf:)` leaks a page for an empty file, which LeakSanitizer reports.
    public static func read(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { readFromDescriptor(descriptor, $0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Replaces the file's bytes.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Replaces the file's bytes, leaving it (or creating it) with mode 0600 whatever the umask, as a
    /// key file or store file must be.
    public static func writePrivate(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        let written = bytes.withUnsafeBytes { writeToDescriptor(descriptor, $0) }
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Whether `needle` occurs anywhere in `haystack`.
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}

/// `read(2)`, out of `FileBytes`, whose own `read` would shadow it.
private func readFromDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}

/// `write(2)`, out of `FileBytes`, whose own `write` would shadow it.
private func writeToDescriptor(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
    write(descriptor, buffer.baseAddress, buffer.count)
}
