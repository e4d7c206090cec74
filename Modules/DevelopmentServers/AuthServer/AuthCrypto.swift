internal import CSodium
import Data
import Domain

/// The auth server's primitives, all libsodium: random tokens, BLAKE2b digests, constant-time
/// comparison and HMAC-SHA-256.
enum AuthCrypto {
    /// The HMAC-SHA-256 key and tag size.
    static let macBytes = Int(crypto_auth_hmacsha256_BYTES)

    /// Whether libsodium initialized (once per process; `sodium_init` is thread-safe).
    private static let initialized: Bool = sodium_init() >= 0

    private static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialize")
    }

    /// A fresh random HMAC key in wiped-on-release memory.
    static func randomKey() -> SecretBytes {
        ensureInitialized()
        let size = Int(crypto_auth_hmacsha256_KEYBYTES)
        return SecretBytes(count: size) { buffer in randombytes_buf(buffer.baseAddress!, size) }
    }

    /// `byteCount` random bytes as unpadded base64url text.
    static func randomToken(byteCount: Int = 32) -> String {
        ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: byteCount)
        randombytes_buf(&bytes, byteCount)
        return Base64URL.encode(bytes)
    }

    /// The BLAKE2b-256 digest of the UTF-8 bytes of `text`, the form in which refresh tokens are stored.
    static func digest(_ text: String) -> [UInt8] {
        ensureInitialized()
        let message = Array(text.utf8)
        var output = [UInt8](repeating: 0, count: 32)
        crypto_generichash(&output, 32, message, UInt64(message.count), nil, 0)
        return output
    }

    /// Whether two strings are equal, in time independent of where they differ and of their lengths:
    /// their fixed-size digests are compared with `sodium_memcmp`.
    static func equalInConstantTime(_ lhs: String, _ rhs: String) -> Bool {
        let left = digest(lhs)
        let right = digest(rhs)
        return sodium_memcmp(left, right, left.count) == 0
    }

    /// The HMAC-SHA-256 tag of `message` under `key` (which must be 32 bytes).
    static func mac(_ message: [UInt8], key: SecretBytes) -> [UInt8] {
        precondition(key.count == Int(crypto_auth_hmacsha256_KEYBYTES))
        var tag = [UInt8](repeating: 0, count: macBytes)
        key.withUnsafeBytes { keyBytes in
            _ = crypto_auth_hmacsha256(
                &tag, message, UInt64(message.count), keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return tag
    }

    /// Whether `tag` is the HMAC-SHA-256 of `message` under `key`, checked in constant time.
    static func verifyMAC(_ tag: [UInt8], message: [UInt8], key: SecretBytes) -> Bool {
        guard tag.count == macBytes, key.count == Int(crypto_auth_hmacsha256_KEYBYTES) else { return false }
        return key.withUnsafeBytes { keyBytes in
            crypto_auth_hmacsha256_verify(
                tag, message, UInt64(message.count), keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
        }
    }
}
