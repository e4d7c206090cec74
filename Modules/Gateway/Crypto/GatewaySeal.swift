internal import CSodium
import Domain
import Foundation

/// The gateway's cryptography, all libsodium: random bytes, keyed BLAKE2b to derive keys, and
/// XChaCha20-Poly1305 to seal what a cookie carries and the tokens a session keeps.
///
/// A session's tokens are sealed *deterministically* (the nonce is a keyed hash of the plaintext, as in
/// SIV constructions): the same token under the same key always seals to the same text, so the store's
/// refresh claims, which compare a session's generation with the stored one, compare sealed tokens just
/// as they compare plain ones. Equal tokens showing as equal is all it reveals.
enum GatewaySeal {
    private static let initialized: Bool = sodium_init() >= 0
    private static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    private static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// The size of every key the gateway uses.
    static let keyBytes = 32

    /// `count` random bytes.
    static func random(_ count: Int) -> [UInt8] {
        precondition(initialized, "libsodium could not be initialised")
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// A 32-byte key derived from `key` for `purpose` (keyed BLAKE2b).
    static func derive(_ key: SecretBytes, purpose: String) -> SecretBytes {
        precondition(initialized, "libsodium could not be initialised")
        var purpose = purpose
        // Hashed straight into the key's own storage: no copy of it to wipe.
        return purpose.withUTF8 { message in
            SecretBytes(count: keyBytes) { output in
                key.withUnsafeBytes { keyBytes in
                    _ = crypto_generichash(
                        output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count, message.baseAddress,
                        UInt64(message.count), keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count)
                }
            }
        }
    }

    /// `plaintext` sealed under `key`, bound to `context`: nonce then ciphertext. With `deterministic`,
    /// the nonce is a keyed hash of the context and plaintext; otherwise it is random.
    static func seal(_ plaintext: SecretBytes, key: SecretBytes, context: String, deterministic: Bool) -> [UInt8] {
        precondition(initialized, "libsodium could not be initialised")
        let additional = Array(context.utf8)
        var nonce: [UInt8]
        if deterministic {
            let nonceKey = derive(key, purpose: "hardtack gateway nonce")
            nonce = [UInt8](repeating: 0, count: nonceBytes)
            var input = additional + [0]
            plaintext.withUnsafeBytes { input.append(contentsOf: $0) }
            defer { input.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) } }
            nonceKey.withUnsafeBytes { keyBytes in
                _ = crypto_generichash(
                    &nonce, nonce.count, input, UInt64(input.count), keyBytes.bindMemory(to: UInt8.self).baseAddress,
                    keyBytes.count)
            }
        } else {
            nonce = random(nonceBytes)
        }
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagBytes)
        var sealedLength: UInt64 = 0
        plaintext.withUnsafeBytes { message in
            key.withUnsafeBytes { keyBytes in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &sealed, &sealedLength, message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                    additional, UInt64(additional.count), nil, nonce, keyBytes.bindMemory(to: UInt8.self).baseAddress!)
            }
        }
        return nonce + sealed.prefix(Int(sealedLength))
    }

    /// The plaintext `sealed` holds, or `nil` when it was not sealed under `key` for `context` (another
    /// key, another context, or altered).
    static func open(_ sealed: [UInt8], key: SecretBytes, context: String) -> SecretBytes? {
        precondition(initialized, "libsodium could not be initialised")
        guard sealed.count >= nonceBytes + tagBytes, key.count == keyBytes else { return nil }
        let additional = Array(context.utf8)
        let nonce = Array(sealed.prefix(nonceBytes))
        let ciphertext = Array(sealed.dropFirst(nonceBytes))
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count - tagBytes)
        defer { plaintext.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) } }
        var length: UInt64 = 0
        let code = key.withUnsafeBytes { keyBytes in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                &plaintext, &length, nil, ciphertext, UInt64(ciphertext.count), additional, UInt64(additional.count),
                nonce, keyBytes.bindMemory(to: UInt8.self).baseAddress!)
        }
        guard code == 0 else { return nil }
        return SecretBytes(plaintext.prefix(Int(length)))
    }

    /// A 16-byte tag of `message` under `key` (keyed BLAKE2b): what makes a value only its maker could have made.
    static func tag(_ message: UnsafeRawBufferPointer, key: SecretBytes) -> [UInt8] {
        precondition(initialized, "libsodium could not be initialised")
        var output = [UInt8](repeating: 0, count: 16)
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash(
                &output, output.count, message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count)
        }
        return output
    }

    /// Whether `tag` is ``tag(_:key:)`` of `message`, compared in time that does not depend on where they
    /// differ; nothing allocated.
    static func verifyTag(_ tag: UnsafeRawBufferPointer, of message: UnsafeRawBufferPointer, key: SecretBytes) -> Bool {
        precondition(initialized, "libsodium could not be initialised")
        guard tag.count == 16 else { return false }
        return withUnsafeTemporaryAllocation(byteCount: 16, alignment: 1) { expected in
            key.withUnsafeBytes { keyBytes in
                _ = crypto_generichash(
                    expected.baseAddress!.assumingMemoryBound(to: UInt8.self), 16,
                    message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                    keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count)
            }
            return sodium_memcmp(expected.baseAddress, tag.baseAddress, 16) == 0
        }
    }

    /// Whether two byte strings are equal, in time that does not depend on where they differ.
    static func equal(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        first.count == second.count && sodium_memcmp(first, second, first.count) == 0
    }
}
