internal import CSodium
package import Data
package import Domain

/// Thin, checked calls into libsodium. Sizes are checked before each C call; failures come back as
/// ``SecureStoreError`` values that keep "wrong key" apart from "damaged".
package enum Sodium {
    /// XChaCha20-Poly1305 nonce size.
    package static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// Poly1305 tag size.
    package static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// Argon2id salt size.
    package static let saltBytes = Int(crypto_pwhash_SALTBYTES)

    private static let initialized: Bool = sodium_init() >= 0

    /// Initializes libsodium once per process (thread-safe; later calls do nothing).
    package static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialize")
    }

    /// `count` random bytes from the system CSPRNG.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// Encrypts `plaintext` under `key` with a fresh random nonce; returns nonce ‖ ciphertext ‖ tag.
    package static func seal(_ plaintext: UnsafeRawBufferPointer, additionalData: [UInt8], key: SecureKey) throws(SecureStoreError)
        -> [UInt8]
    {
        var output = randomBytes(nonceBytes)
        output.append(contentsOf: repeatElement(0, count: plaintext.count + tagBytes))
        try key.withBytes { keyBytes throws(SecureStoreError) in
            var written: UInt64 = 0
            let code = output.withUnsafeMutableBufferPointer { out in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    out.baseAddress! + nonceBytes, &written,
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                    additionalData, UInt64(additionalData.count), nil, out.baseAddress!, keyBytes)
            }
            guard code == 0 else { throw .storage(.sodium("encryption failed", code: code)) }
        }
        return output
    }

    /// Encrypts the bytes of `plaintext`; see ``seal(_:additionalData:key:)-pointer``.
    package static func seal(_ plaintext: [UInt8], additionalData: [UInt8], key: SecureKey) throws(SecureStoreError) -> [UInt8] {
        let result = plaintext.withUnsafeBytes { raw in
            Result { () throws(SecureStoreError) in try seal(raw, additionalData: additionalData, key: key) }
        }
        return try result.get()
    }

    /// Pads `plaintext` (ISO/IEC 7816-4, to the next multiple of `block`) and encrypts it under `key`
    /// with `nonce`, random bytes the caller drew for this one encryption; returns nonce ‖ ciphertext ‖ tag.
    ///
    /// Padding and encryption happen in place in the returned buffer, so the padded plaintext is never
    /// a separate copy: encryption overwrites it where it was written.
    package static func sealPadded(
        _ plaintext: UnsafeRawBufferPointer, block: Int, additionalData: [UInt8], key: SecureKey, nonce: ArraySlice<UInt8>
    ) throws(SecureStoreError) -> [UInt8] {
        precondition(nonce.count == nonceBytes, "an XChaCha20-Poly1305 nonce is 24 bytes")
        let padded = paddedLength(plaintext.count, block: block)
        let total = nonceBytes + padded + tagBytes
        return try key.withBytes { keyBytes throws(SecureStoreError) in
            var code: Int32 = 0
            let box = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
                let base = buffer.baseAddress!
                nonce.withUnsafeBytes { UnsafeMutableRawPointer(base).copyMemory(from: $0.baseAddress!, byteCount: nonceBytes) }
                let message = base + nonceBytes
                if plaintext.count > 0 {
                    UnsafeMutableRawPointer(message).copyMemory(from: plaintext.baseAddress!, byteCount: plaintext.count)
                }
                var paddedCount = 0
                _ = sodium_pad(&paddedCount, message, plaintext.count, block, padded)
                var written: UInt64 = 0
                code = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    message, &written, message, UInt64(padded), additionalData, UInt64(additionalData.count), nil, base,
                    keyBytes)
                if code != 0 { sodium_memzero(base, total) }
                initialized = total
            }
            guard code == 0 else { throw .storage(.sodium("encryption failed", code: code)) }
            return box
        }
    }

    /// Decrypts nonce ‖ ciphertext ‖ tag and strips its ISO/IEC 7816-4 padding, in one wiped-on-release
    /// buffer: the inverse of ``sealPadded(_:block:additionalData:key:)``.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` naming `what` when the box is too short or
    ///   fails authentication, or when its padding is malformed.
    package static func openPadded(_ box: [UInt8], block: Int, additionalData: [UInt8], key: SecureKey, what: String)
        throws(SecureStoreError) -> SecretBytes
    {
        try openPadded(box, block: block, additionalData: additionalData, key: key, what: what) { $0.count }
    }

    /// ``openPadded(_:block:additionalData:key:what:)`` keeping only a prefix of the plaintext:
    /// `keeping` reads the whole unpadded plaintext and returns how many of its first bytes are the
    /// result (the rest stays in the same wiped-on-release buffer, unseen), so a part is split off
    /// without a second copy of the secret.
    package static func openPadded(
        _ box: [UInt8], block: Int, additionalData: [UInt8], key: SecureKey, what: String,
        keeping: (UnsafeRawBufferPointer) throws(SecureStoreError) -> Int
    ) throws(SecureStoreError) -> SecretBytes {
        guard box.count >= nonceBytes + tagBytes else { throw .integrityFailure("\(what) is truncated") }
        let capacity = box.count - nonceBytes - tagBytes
        return try key.withBytes { keyBytes throws(SecureStoreError) in
            var failure: SecureStoreError?
            let secret = SecretBytes(capacity: capacity) { out in
                let output = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                let code = box.withUnsafeBufferPointer { input in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        output, nil, nil, input.baseAddress! + nonceBytes, UInt64(box.count - nonceBytes),
                        additionalData, UInt64(additionalData.count), input.baseAddress!, keyBytes)
                }
                guard code == 0 else {
                    failure = .integrityFailure("\(what) failed authentication")
                    return 0
                }
                var count = 0
                guard let output, capacity > 0, sodium_unpad(&count, output, capacity, block) == 0 else {
                    failure = .integrityFailure("an item's padding is malformed")
                    return 0
                }
                do throws(SecureStoreError) {
                    let kept = try keeping(UnsafeRawBufferPointer(rebasing: out[0..<count]))
                    precondition(kept >= 0 && kept <= count, "a prefix of the plaintext")
                    return kept
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            return secret
        }
    }

    /// A keyed BLAKE2b hash of `message` into all of `output` (16 bytes here), allocating nothing.
    package static func keyedHash(
        _ message: UnsafeRawBufferPointer, key: SecureKey, into output: UnsafeMutableRawBufferPointer
    ) throws(SecureStoreError) {
        try key.withBytes { keyBytes throws(SecureStoreError) in
            let code = crypto_generichash(
                output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count,
                message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count), keyBytes,
                SecureKey.byteCount)
            guard code == 0 else { throw .storage(.sodium("hashing failed", code: code)) }
        }
    }

    /// A keyed BLAKE2b hash of `message` into `output`, which sets the length (16 bytes here).
    package static func keyedHash(_ message: [UInt8], key: SecureKey, into output: inout BlindIndex) throws(SecureStoreError) {
        let length = output.count
        try key.withBytes { keyBytes throws(SecureStoreError) in
            let code = output.withUnsafeMutableBytes { out in
                crypto_generichash(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), length, message, UInt64(message.count), keyBytes,
                    SecureKey.byteCount)
            }
            guard code == 0 else { throw .storage(.sodium("hashing failed", code: code)) }
        }
    }

    /// Decrypts nonce ‖ ciphertext ‖ tag into wiped-on-release memory.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` naming `what` when the box is too short or
    ///   fails authentication.
    package static func open(_ box: [UInt8], additionalData: [UInt8], key: SecureKey, what: String) throws(SecureStoreError)
        -> SecretBytes
    {
        guard box.count >= nonceBytes + tagBytes else { throw .integrityFailure("\(what) is truncated") }
        let plaintextCount = box.count - nonceBytes - tagBytes
        return try key.withBytes { keyBytes throws(SecureStoreError) in
            var failed = false
            let plaintext = SecretBytes(count: plaintextCount) { out in
                box.withUnsafeBufferPointer { input in
                    var written: UInt64 = 0
                    failed =
                        crypto_aead_xchacha20poly1305_ietf_decrypt(
                            out.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, nil,
                            input.baseAddress! + nonceBytes, UInt64(box.count - nonceBytes),
                            additionalData, UInt64(additionalData.count), input.baseAddress!, keyBytes) != 0
                }
            }
            guard !failed else { throw .integrityFailure("\(what) failed authentication") }
            return plaintext
        }
    }

    /// Like ``open(_:additionalData:key:what:)`` but a failure means the key is wrong, not the data.
    package static func unwrap(_ box: [UInt8], additionalData: [UInt8], key: SecureKey) throws(SecureStoreError) -> SecretBytes {
        do {
            return try open(box, additionalData: additionalData, key: key, what: "the wrapped key")
        } catch .integrityFailure {
            throw .wrongKey
        }
    }

    /// A keyed BLAKE2b hash of `message`, `length` bytes long (16 to 64).
    package static func keyedHash(_ message: [UInt8], key: SecureKey, length: Int) throws(SecureStoreError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: length)
        try key.withBytes { keyBytes throws(SecureStoreError) in
            let code = crypto_generichash(
                &output, length, message, UInt64(message.count), keyBytes, SecureKey.byteCount)
            guard code == 0 else { throw .storage(.sodium("hashing failed", code: code)) }
        }
        return output
    }

    /// A keyed BLAKE2b hash of `message` written straight into `output` (key material that must not
    /// pass through ordinary memory).
    package static func keyedHash(_ message: [UInt8], key: SecureKey, into output: UnsafeMutablePointer<UInt8>, length: Int)
        throws(SecureStoreError)
    {
        try key.withBytes { keyBytes throws(SecureStoreError) in
            let code = crypto_generichash(output, length, message, UInt64(message.count), keyBytes, SecureKey.byteCount)
            guard code == 0 else { throw .storage(.sodium("hashing failed", code: code)) }
        }
    }

    /// An unkeyed BLAKE2b-256 checksum of `message`.
    package static func checksum(_ message: [UInt8]) -> [UInt8] {
        ensureInitialized()
        var output = [UInt8](repeating: 0, count: 32)
        crypto_generichash(&output, 32, message, UInt64(message.count), nil, 0)
        return output
    }

    /// Derives subkey number `id` of `master` for the 8-byte `context`.
    package static func deriveSubkey(_ master: SecureKey, id: UInt64, context: StaticString) throws(SecureStoreError)
        -> SecureKey
    {
        precondition(context.utf8CodeUnitCount == Int(crypto_kdf_CONTEXTBYTES))
        let subkey = try SecureKey()
        try master.withBytes { masterBytes throws(SecureStoreError) in
            try subkey.fill { out throws(SecureStoreError) in
                let code = context.withUTF8Buffer { ctx in
                    ctx.withMemoryRebound(to: CChar.self) { ctx in
                        crypto_kdf_derive_from_key(out, SecureKey.byteCount, id, ctx.baseAddress!, masterBytes)
                    }
                }
                guard code == 0 else { throw .storage(.sodium("key derivation failed", code: code)) }
            }
        }
        return subkey
    }

    /// Stretches `passphrase` into a key with Argon2id.
    package static func argon2id(passphrase: SecretBytes, salt: [UInt8], opsLimit: UInt64, memLimit: UInt64)
        throws(SecureStoreError) -> SecureKey
    {
        guard salt.count == saltBytes else { throw .integrityFailure("the key-derivation salt has the wrong size") }
        let key = try SecureKey()
        try key.fill { out throws(SecureStoreError) in
            let code = passphrase.withUnsafeBytes { raw in
                crypto_pwhash(
                    out, UInt64(SecureKey.byteCount), raw.baseAddress!.assumingMemoryBound(to: CChar.self),
                    UInt64(raw.count), salt, opsLimit, Int(memLimit), crypto_pwhash_ALG_ARGON2ID13)
            }
            guard code == 0 else {
                throw .storage(
                    .sodium("Argon2id ran out of memory (it needs \(memLimit >> 20) MiB)", code: code, kind: .resources))
            }
        }
        return key
    }

    /// Pads `count` up to the next multiple of `block` after one marker byte (ISO/IEC 7816-4).
    package static func paddedLength(_ count: Int, block: Int) -> Int { (count / block + 1) * block }

    /// Copies `secret` into a padded buffer (ISO/IEC 7816-4, as `sodium_pad`) that wipes itself.
    package static func pad(_ secret: SecretBytes, block: Int) -> SecretBytes {
        let total = paddedLength(secret.count, block: block)
        return SecretBytes(count: total) { out in
            secret.withUnsafeBytes { input in
                if input.count > 0 { out.baseAddress!.copyMemory(from: input.baseAddress!, byteCount: input.count) }
            }
            var paddedCount = 0
            _ = sodium_pad(&paddedCount, out.baseAddress!.assumingMemoryBound(to: UInt8.self), secret.count, block, total)
        }
    }

    /// Removes ISO/IEC 7816-4 padding.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when the padding is malformed.
    package static func unpad(_ padded: SecretBytes, block: Int) throws(SecureStoreError) -> SecretBytes {
        guard padded.count > 0 else { throw .integrityFailure("an item's padding is malformed") }
        var count = 0
        let code = padded.withUnsafeBytes { raw in
            sodium_unpad(&count, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count, block)
        }
        guard code == 0 else { throw .integrityFailure("an item's padding is malformed") }
        return padded.withUnsafeBytes { raw in SecretBytes(UnsafeRawBufferPointer(rebasing: raw[0..<count])) }
    }
}
