internal import CSodium
package import Data
package import Domain

/// libsodium's secretstream (XChaCha20-Poly1305): a sequence of messages under one key, each
/// authenticated with its place in the sequence, the last one marked final, so that a stream cut
/// short, reordered, or with a message changed, dropped or repeated fails to open.
package enum SecretStream {
    /// The key size.
    package static let keyBytes = Int(crypto_secretstream_xchacha20poly1305_KEYBYTES)
    /// The header each stream starts with (its random nonce).
    package static let headerBytes = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    /// What each sealed message adds to its plaintext.
    package static let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)

    /// Seals messages in order.
    package final class Writer {
        private var state: crypto_secretstream_xchacha20poly1305_state
        /// The stream's header, to be stored before the first message.
        package let header: [UInt8]

        /// A stream under `key` (exactly ``keyBytes``).
        package init(key: SecureKey) throws(SecureStoreError) {
            precondition(SecureKey.byteCount == SecretStream.keyBytes)
            Sodium.ensureInitialized()
            var header = [UInt8](repeating: 0, count: SecretStream.headerBytes)
            var state = crypto_secretstream_xchacha20poly1305_state()
            let code = try key.withBytes { bytes throws(SecureStoreError) in
                crypto_secretstream_xchacha20poly1305_init_push(&state, &header, bytes)
            }
            guard code == 0 else { throw .storage(.sodium("the export stream could not start", code: code)) }
            self.header = header
            self.state = state
            withUnsafeMutableBytes(of: &state) { SecretBytes.wipe($0) }
        }

        deinit { withUnsafeMutableBytes(of: &state) { SecretBytes.wipe($0) } }

        /// `message` sealed as the next one, bound to `additionalData`; `final` marks the last.
        package func seal(_ message: UnsafeRawBufferPointer, additionalData: [UInt8], final: Bool) throws(SecureStoreError)
            -> [UInt8]
        {
            var box = [UInt8](repeating: 0, count: message.count + SecretStream.overhead)
            var written: UInt64 = 0
            let tag = UInt8(final ? crypto_secretstream_xchacha20poly1305_TAG_FINAL : crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)
            let code = crypto_secretstream_xchacha20poly1305_push(
                &state, &box, &written, message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                additionalData, UInt64(additionalData.count), tag)
            guard code == 0, Int(written) == box.count else {
                throw .storage(.sodium("an export message could not be sealed", code: code))
            }
            return box
        }
    }

    /// Opens messages in order.
    package final class Reader {
        private var state: crypto_secretstream_xchacha20poly1305_state

        /// A stream under `key` that started with `header`.
        /// - Throws: ``SecureStoreError/integrityFailure(_:)`` for a header of the wrong size.
        package init(key: SecureKey, header: [UInt8]) throws(SecureStoreError) {
            guard header.count == SecretStream.headerBytes else { throw .integrityFailure("the export's header is cut short") }
            Sodium.ensureInitialized()
            var state = crypto_secretstream_xchacha20poly1305_state()
            let code = try key.withBytes { bytes throws(SecureStoreError) in
                crypto_secretstream_xchacha20poly1305_init_pull(&state, header, bytes)
            }
            guard code == 0 else { throw .integrityFailure("the export's header is damaged") }
            self.state = state
            withUnsafeMutableBytes(of: &state) { SecretBytes.wipe($0) }
        }

        deinit { withUnsafeMutableBytes(of: &state) { SecretBytes.wipe($0) } }

        /// The next message and whether it is the final one.
        /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when it does not open: a message changed,
        ///   moved or left out (or the wrong key, which the caller tells apart beforehand).
        package func open(_ box: [UInt8], additionalData: [UInt8]) throws(SecureStoreError)
            -> (message: SecretBytes, final: Bool)
        {
            guard box.count >= SecretStream.overhead else { throw .integrityFailure("an export message is cut short") }
            var tag: UInt8 = 0
            var failed = false
            let message = SecretBytes(count: box.count - SecretStream.overhead) { out in
                var written: UInt64 = 0
                failed =
                    crypto_secretstream_xchacha20poly1305_pull(
                        &state, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, &tag, box,
                        UInt64(box.count), additionalData, UInt64(additionalData.count)) != 0
            }
            guard !failed else { throw .integrityFailure("the export file was changed, reordered or cut") }
            return (message, tag == UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL))
        }
    }
}
