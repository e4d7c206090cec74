package import Data
package import Domain

/// The one ciphertext of a joint row (``RowFormat/joint``): `LEB128(length of the attributes) ‖
/// attributes (``CompactAttributeCodec``) ‖ secret`, padded to a 64-byte bucket and sealed under the
/// data key with one nonce, bound to the row (its id, class, index cells and version) like a format-1
/// row's ciphertexts, under its own column tag. The plaintext is built and opened only in wiped-on-release
/// memory.
package enum JointEnvelope {
    /// Seals `encoded` compact attributes and `secret` into `row.sealedData`, and empties
    /// `row.sealedAttributes` (which marks the row joint).
    package static func seal(
        _ row: inout ItemRow, encoded: [UInt8], secret: UnsafeRawBufferPointer, keys: ItemKeys, nonce: ArraySlice<UInt8>
    ) throws(SecureStoreError) {
        var prefix: [UInt8] = []
        CompactAttributeCodec.appendLength(encoded.count, to: &prefix)
        let plain = SecretBytes(count: prefix.count + encoded.count + secret.count) { out in
            var offset = 0
            func append(_ bytes: UnsafeRawBufferPointer) {
                if bytes.count > 0 { (out.baseAddress! + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
                offset += bytes.count
            }
            prefix.withUnsafeBytes(append)
            encoded.withUnsafeBytes(append)
            append(secret)
        }
        let sealed = try keys.withAdditionalData(column: ItemRow.jointColumn, row: row) {
            additionalData throws(SecureStoreError) in
            try plain.withUnsafeBytes { raw throws(SecureStoreError) in
                try Sodium.sealPadded(
                    raw, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data, nonce: nonce)
            }
        }
        row.sealedAttributes = []
        row.sealedData = sealed
    }

    /// Seals `attributes` and `data` into `row` as a joint row.
    package static func seal(_ row: inout ItemRow, _ attributes: ItemAttributes, data: SecretBytes, keys: ItemKeys)
        throws(SecureStoreError)
    {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(128)
        CompactAttributeCodec.encode(attributes, into: &encoded)
        defer { encoded.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        let nonce = Sodium.randomBytes(Sodium.nonceBytes)
        try data.withUnsafeBytes { raw throws(SecureStoreError) in
            try seal(&row, encoded: encoded, secret: raw, keys: keys, nonce: nonce[...])
        }
    }

    /// A joint row's plaintext, decrypted and unpadded (split it with ``split(_:)``).
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when it does not authenticate as this row's.
    package static func open(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        try keys.withAdditionalData(column: ItemRow.jointColumn, row: row) { additionalData throws(SecureStoreError) in
            try Sodium.openPadded(
                row.sealedData, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data,
                what: "an item")
        }
    }

    /// The attributes' and the secret's bytes within an opened plaintext.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when the length prefix is malformed (an
    ///   authenticated plaintext never is: only a store written by something else could hold one).
    package static func split(_ plain: UnsafeRawBufferPointer) throws(SecureStoreError)
        -> (attributes: UnsafeRawBufferPointer, secret: UnsafeRawBufferPointer)
    {
        var index = 0
        guard let count = CompactAttributeCodec.readLength(plain, at: &index), count <= plain.count - index else {
            throw .integrityFailure("an item's attributes are malformed")
        }
        return (
            UnsafeRawBufferPointer(rebasing: plain[index..<(index + count)]),
            UnsafeRawBufferPointer(rebasing: plain[(index + count)...])
        )
    }
}
