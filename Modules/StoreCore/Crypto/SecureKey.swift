internal import CSodium
package import Data
package import Domain

/// A 32-byte key in `sodium_malloc`ed memory (guard pages, not swapped where the system allows), wiped
/// by ``wipe()`` and by `deinit`.
///
/// Not `Sendable`: keys are owned by one store and used only under its lock.
package final class SecureKey {
    /// The size of every key Hardtack uses: XChaCha20-Poly1305, BLAKE2b and the KDF all take 32 bytes.
    package static let byteCount = 32

    private var pointer: UnsafeMutableRawPointer?

    /// A fresh random key.
    package static func random() throws(SecureStoreError) -> SecureKey {
        let key = try SecureKey()
        randombytes_buf(key.pointer!, byteCount)
        return key
    }

    /// A key holding a copy of `bytes`, which must be exactly 32 bytes long.
    package convenience init(copying bytes: UnsafeRawBufferPointer) throws(SecureStoreError) {
        guard bytes.count == Self.byteCount else {
            throw .invalidKeyMaterial("a key must be \(Self.byteCount) bytes, not \(bytes.count)")
        }
        try self.init()
        pointer!.copyMemory(from: bytes.baseAddress!, byteCount: Self.byteCount)
    }

    /// A key holding a copy of `bytes`, which must be exactly 32 bytes long.
    package convenience init(copying bytes: [UInt8]) throws(SecureStoreError) {
        guard bytes.count == Self.byteCount else {
            throw .invalidKeyMaterial("a key must be \(Self.byteCount) bytes, not \(bytes.count)")
        }
        try self.init()
        pointer!.copyMemory(from: bytes, byteCount: Self.byteCount)
    }

    /// A key holding a copy of `secret`, which must be exactly 32 bytes long.
    package convenience init(copying secret: SecretBytes) throws(SecureStoreError) {
        guard secret.count == Self.byteCount else {
            throw .invalidKeyMaterial("a key must be \(Self.byteCount) bytes, not \(secret.count)")
        }
        try self.init()
        secret.withUnsafeBytes { raw in pointer!.copyMemory(from: raw.baseAddress!, byteCount: Self.byteCount) }
    }

    /// A zeroed key, to be filled by its creator.
    package init() throws(SecureStoreError) {
        Sodium.ensureInitialized()
        guard let memory = sodium_malloc(Self.byteCount) else {
            throw .storage(.sodium("could not allocate protected memory for a key", code: -1, kind: .resources))
        }
        sodium_memzero(memory, Self.byteCount)
        pointer = memory
    }

    deinit { wipe() }

    /// Zeroes and frees the key; later use fails with ``SecureStoreError/locked``.
    package func wipe() {
        if let pointer {
            sodium_free(pointer)  // sodium_free zeroes the memory before releasing it.
            self.pointer = nil
        }
    }

    /// Calls `body` with the key bytes.
    package func withBytes<Result>(_ body: (UnsafePointer<UInt8>) throws(SecureStoreError) -> Result) throws(SecureStoreError)
        -> Result
    {
        guard let pointer else { throw .locked }
        return try body(pointer.assumingMemoryBound(to: UInt8.self))
    }

    /// Fills the key through `body`, which receives a writable 32-byte buffer.
    package func fill(_ body: (UnsafeMutablePointer<UInt8>) throws(SecureStoreError) -> Void) throws(SecureStoreError) {
        guard let pointer else { throw .locked }
        try body(pointer.assumingMemoryBound(to: UInt8.self))
    }
}
