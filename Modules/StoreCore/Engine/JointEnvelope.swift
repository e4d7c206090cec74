package import Data
package import Domain

/// The one ciphertext of a joint row (``RowFormat/joint``): `secret ‖ attributes (``CompactAttributeCodec``)
/// ‖ the attributes' length`, padded to a 64-byte bucket and sealed under the data key with one nonce,
/// bound to the row (its id, class, index cells and version) like a format-1 row's ciphertexts, under
/// its own column tag. The length is LEB128 written back to front, read from the end: the secret
/// comes first, so opening leaves it at the start of the wiped-on-release buffer and a read of the
/// secret makes no second copy of it.
package enum JointEnvelope {
    /// Seals `encoded` compact attributes and the secret `data` into `row.sealedData` under a fresh
    /// nonce, and empties `row.sealedAttributes` (which marks the row joint).
    package static func seal(_ row: inout ItemRow, encoded: [UInt8], data: SecretBytes, keys: ItemKeys)
        throws(SecureStoreError)
    {
        var trailer: [UInt8] = []
        CompactAttributeCodec.appendLength(encoded.count, to: &trailer)
        trailer.reverse()
        let plain = SecretBytes(count: data.count + encoded.count + trailer.count) { out in
            var offset = 0
            func append(_ bytes: UnsafeRawBufferPointer) {
                if bytes.count > 0 { (out.baseAddress! + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
                offset += bytes.count
            }
            data.withUnsafeBytes(append)
            encoded.withUnsafeBytes(append)
            trailer.withUnsafeBytes(append)
        }
        let nonce = Sodium.randomBytes(Sodium.nonceBytes)
        let sealed = try keys.withAdditionalData(column: ItemRow.jointColumn, row: row) {
            additionalData throws(SecureStoreError) in
            try plain.withUnsafeBytes { raw throws(SecureStoreError) in
                try Sodium.sealPadded(
                    raw, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data, nonce: nonce[...])
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
        try seal(&row, encoded: encoded, data: data, keys: keys)
    }

    /// Opens a joint row: `attributes` is given its attributes' encoded bytes (they are wiped with the
    /// buffer after it returns), and the row's secret is returned.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when the row does not authenticate as this
    ///   row's, or its layout is malformed (which only a store written by something else could hold).
    package static func open(
        _ row: ItemRow, keys: ItemKeys, attributes: (UnsafeRawBufferPointer) throws(SecureStoreError) -> Void
    ) throws(SecureStoreError) -> SecretBytes {
        try keys.withAdditionalData(column: ItemRow.jointColumn, row: row) { additionalData throws(SecureStoreError) in
            try Sodium.openPadded(
                row.sealedData, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data,
                what: "an item"
            ) { plain throws(SecureStoreError) in
                let (secretCount, encoded) = try split(plain)
                try attributes(encoded)
                return secretCount
            }
        }
    }

    /// The secret's length and the attributes' bytes within an opened plaintext.
    private static func split(_ plain: UnsafeRawBufferPointer) throws(SecureStoreError)
        -> (secretCount: Int, attributes: UnsafeRawBufferPointer)
    {
        let malformed = SecureStoreError.integrityFailure("an item's attributes are malformed")
        var count = 0
        var end = plain.count
        for shift in stride(from: 0, to: 35, by: 7) {
            guard end > 0 else { throw malformed }
            end -= 1
            let byte = plain[end]
            count |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                guard count <= end else { throw malformed }
                return (end - count, UnsafeRawBufferPointer(rebasing: plain[(end - count)..<end]))
            }
        }
        throw malformed
    }
}
