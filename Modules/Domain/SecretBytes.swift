#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Secret bytes (a token, a password, a key) held in memory that is wiped when the last reference goes.
///
/// The bytes are copied once into private memory kept out of core dumps and locked in RAM where the
/// system allows (``SecretMemory``), and never exposed as a `String`, `Array` or
/// `Data` unless the caller asks through ``withUnsafeBytes(_:)`` or ``revealedString()``. The type has no
/// `Codable` conformance, and its `description` is a fixed placeholder, so it cannot slip into a log.
/// Equality is constant-time.
public final class SecretBytes: Sendable {
    // Safety: `storage` is allocated and filled in `init`, never written again until `deinit` wipes
    // and frees it. Every other access is a read, so sharing the instance between threads is safe.
    private nonisolated(unsafe) let storage: UnsafeMutableRawBufferPointer
    private let byteCount: Int

    /// The number of secret bytes.
    public var count: Int { byteCount }

    /// Whether there are no bytes at all.
    public var isEmpty: Bool { byteCount == 0 }

    /// Copies `bytes` into wiped-on-release memory.
    public init<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        let count = bytes.count
        let buffer = SecretMemory.allocate(byteCount: max(count, 1))
        // Contiguous sources (arrays, buffers) are copied in one move, not byte by byte.
        let copied: Bool? = bytes.withContiguousStorageIfAvailable { source in
            if count > 0 { buffer.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: count) }
            return true
        }
        if copied == nil { _ = buffer.initializeMemory(as: UInt8.self, from: bytes) }
        if count == 0 { buffer.storeBytes(of: 0, as: UInt8.self) }
        storage = buffer
        byteCount = count
    }

    /// Copies the UTF-8 bytes of `string`; the string itself is not wiped, so prefer byte sources.
    public convenience init(utf8 string: String) {
        self.init(Array(string.utf8))
    }

    /// Creates `count` bytes filled by `fill`, which writes straight into the wiped-on-release buffer.
    public init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        storage = SecretMemory.allocate(byteCount: max(count, 1))
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        byteCount = count
        // Every stored property is set, so if `fill` throws, releasing `self` runs `deinit`, which wipes
        // and frees the buffer; freeing it here as well would free it twice.
        try fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Creates at most `capacity` bytes filled by `fill`, which writes straight into the wiped-on-release
    /// buffer and returns how many of them are the secret (a decryption that also strips padding).
    /// Bytes past that count are wiped with the rest when the secret is released.
    public init(capacity: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
        let buffer = SecretMemory.allocate(byteCount: max(capacity, 1))
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        let count: Int
        do {
            count = try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<capacity]))
        } catch {
            // No stored property is set yet, so `deinit` will not run: wipe and free here.
            SecretBytes.wipe(buffer)
            SecretMemory.deallocate(buffer)
            throw error
        }
        precondition(count >= 0 && count <= capacity, "fill returned a count outside the buffer")
        storage = buffer
        byteCount = count
    }

    deinit {
        SecretBytes.wipe(storage)
        SecretMemory.deallocate(storage)
    }

    /// Calls `body` with the secret bytes; the pointer must not escape the call.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<byteCount]))
    }

    /// The bytes as a string when they are valid UTF-8, else `nil`. Never repairs invalid bytes.
    ///
    /// The returned `String` is ordinary memory that is not wiped: call this only at the edge where a
    /// string is unavoidable (an HTTP header), and keep it short-lived.
    public func revealedString() -> String? {
        withUnsafeBytes { raw in
            String(validating: raw.bindMemory(to: UInt8.self), as: UTF8.self)
        }
    }

    /// Compares two secrets in time that depends only on their lengths.
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard byteCount == other.byteCount else { return false }
        return constantTimeEquals(UnsafeRawBufferPointer(rebasing: other.storage[0..<other.byteCount]))
    }

    /// Compares the secret with `bytes` in time that depends only on their lengths.
    public func constantTimeEquals(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard byteCount == bytes.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<byteCount {
            difference |= storage[index] ^ bytes[index]
        }
        return difference == 0
    }

    /// Overwrites `buffer` with zeros in a way the optimizer may not remove.
    public static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Darwin)
            _ = memset_s(base, buffer.count, 0, buffer.count)
        #else
            explicit_bzero(base, buffer.count)
        #endif
    }
}

extension SecretBytes: Equatable {
    /// Constant-time equality of the bytes.
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        lhs.constantTimeEquals(rhs)
    }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A fixed placeholder with the length only: the bytes never appear in text.
    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    /// The same placeholder as ``description``.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and debuggers show nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
