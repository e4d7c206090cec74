internal import DirectSodium
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file and byte helpers every scenario uses: whole-file reads and private writes, hashes,
/// byte searches, and scratch directories.

/// The bytes of the file at `path`, or an empty array when it cannot be read.
func readFile(_ path: String) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
}

/// Replaces (or creates, mode 0600 whatever the umask) the file at `path` with `bytes`.
/// - Parameter sync: `fsync` before returning.
@discardableResult
func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool = false) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    _ = fchmod(descriptor, 0o600)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return false }
        offset += written
    }
    return !sync || fsync(descriptor) == 0
}

/// Whether a file (or directory, or link) exists at `path`, without following a final link.
func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

/// Deletes a file if it exists.
func remove(_ path: String) {
    unlink(path)
}

/// Deletes a directory tree.
func removeTree(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Creates a private directory (and its parents) and returns its path.
@discardableResult
func makeDirectory(_ path: String) -> String {
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    chmod(path, 0o700)
    return path
}

/// A BLAKE2b-256 hash of `bytes`, as hex: how scenarios prove that a file did not change.
func hashHex(_ bytes: [UInt8]) -> String {
    var output = [UInt8](repeating: 0, count: 32)
    _ = sodium_init()
    crypto_generichash(&output, 32, bytes, UInt64(bytes.count), nil, 0)
    return output.map { String(format: "%02x", $0) }.joined()
}

/// The hash of the file at `path` (of nothing, when it does not exist).
func fileHash(_ path: String) -> String {
    exists(path) ? hashHex(readFile(path)) : "absent"
}

/// Where `needle` first occurs in `haystack`, or `nil`.
func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
    let first = needle[0]
    var index = 0
    let last = haystack.count - needle.count
    return haystack.withUnsafeBufferPointer { hay in
        while index <= last {
            if hay[index] == first {
                var matched = true
                for offset in 1..<needle.count where hay[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}

/// Whether `needle` occurs anywhere in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    firstIndex(of: needle, in: haystack) != nil
}

/// The mode bits (permissions only) of `path`, without following a final link; `nil` if absent.
func modeBits(_ path: String) -> UInt32? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return UInt32(info.st_mode & 0o7777)
}

/// Every regular file under `directory`, recursively.
func filesUnder(_ directory: String) -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
    var files: [String] = []
    while let relative = walker.nextObject() as? String {
        let path = directory + "/" + relative
        var info = stat()
        if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG { files.append(path) }
    }
    return files.sorted()
}

/// Bytes as lowercase hex.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// Hex text back to bytes (`nil` when malformed).
func bytes(fromHex text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var index = 0
    while index < digits.count {
        guard let pair = UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16) else {
            return nil
        }
        out.append(pair)
        index += 2
    }
    return out
}

/// The unkeyed BLAKE2b-256 of `bytes` (what the store's header checksum is).
func blake2b256(_ bytes: [UInt8]) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 32)
    _ = sodium_init()
    crypto_generichash(&output, 32, bytes, UInt64(bytes.count), nil, 0)
    return output
}
