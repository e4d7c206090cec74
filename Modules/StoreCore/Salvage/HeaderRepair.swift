package import Data
import Domain

/// Unlocking a damaged store's header record for salvage, where one flipped bit in it would otherwise
/// lose every item: the wrapped master key is its only copy.
///
/// The record is tried as stored, then with each single bit of the wrapped key flipped, then with the
/// header's format byte set to each other format this build reads (an edited format, which `open`
/// reports as damage: ``KeyHierarchy``), then with each single bit of the encoded header flipped. The
/// stored checksum is not needed: a variant counts only when the wrapped key authenticates
/// (XChaCha20-Poly1305) under the key-encryption key with the header as additional data, which no
/// wrong variant does except with negligible probability; so a repaired record is the one that was
/// written, never a guess. A passphrase's Argon2id runs once: a
/// header variant that would change the salt or cost is tried only for key material, whose
/// key-encryption key is a cheap hash.
package enum HeaderRepair {
    /// The keys `record` yields under `keySource`, repairing a single flipped bit if need be, and
    /// whether the record was damaged (a bit repaired, or a checksum that does not match).
    /// - Throws: what unlocking the record as stored throws (``SecureStoreError/wrongKey`` for the
    ///   wrong key, an integrity failure for a record beyond repair).
    package static func unlock(_ record: HeaderRecord, keySource: KeySource) throws(SecureStoreError)
        -> (keys: ItemKeys, damaged: Bool)
    {
        var cache: [[UInt8]: SecureKey] = [:]
        var firstError: SecureStoreError?
        let (headers, wrappedKeys) = variants(record)
        let otherFormats = StoreHeader.otherFormats(of: record.header).map(\.encoded)
        for (index, header) in ([record.header] + otherFormats + headers.dropFirst()).enumerated() {
            let wrapped = index == 0 ? wrappedKeys : BitFlips(bytes: record.wrappedKey, repairing: false)
            do {
                if let (keys, variant) = try unlock(
                    header: header, wrapped: wrapped, original: record.header, keySource, &cache)
                {
                    let checksum = StoreHeader.checksum(header: record.header, wrappedKey: record.wrappedKey)
                    return (keys, index > 0 || variant > 0 || checksum != record.checksum)
                }
                if index == 0 { firstError = .wrongKey }
            } catch {
                if index == 0 { firstError = error }
            }
        }
        throw firstError ?? .wrongKey
    }

    /// The size of a wrapped master key: nonce, the 32-byte key, tag.
    static let wrappedKeyBytes = Sodium.nonceBytes + SecureKey.byteCount + Sodium.tagBytes

    /// The header and wrapped-key variants `unlock` tries for `record`: one-bit variants only of a cell
    /// of the size the store writes (a flipped bit does not change a cell's size; a cell of any other
    /// size, 8 KB crafted, say, is tried only as stored, rather than as 65,536 copies of itself).
    static func variants(_ record: HeaderRecord) -> (header: BitFlips, wrappedKey: BitFlips) {
        (
            BitFlips(bytes: record.header, repairing: record.header.count == StoreHeader.encodedCount),
            BitFlips(bytes: record.wrappedKey, repairing: record.wrappedKey.count == wrappedKeyBytes)
        )
    }

    /// How many variants of the header and of the wrapped key `unlock` tries at most for `record`.
    package static func variantCounts(_ record: HeaderRecord) -> (header: Int, wrappedKey: Int) {
        let (header, wrappedKey) = variants(record)
        return (header.count + StoreHeader.otherFormats(of: record.header).count, wrappedKey.count)
    }

    /// The keys from `header` and the first of `wrapped` that authenticates, with its position, or `nil`.
    private static func unlock(
        header bytes: [UInt8], wrapped: BitFlips, original: [UInt8], _ keySource: KeySource,
        _ cache: inout [[UInt8]: SecureKey]
    ) throws(SecureStoreError) -> (ItemKeys, Int)? {
        let header = try StoreHeader(
            decoding: bytes, checksum: StoreHeader.checksum(header: bytes, wrappedKey: wrapped.bytes),
            wrappedKey: wrapped.bytes)
        // What the key-encryption key depends on: the kind, the cost and the salt.
        let derivation = [header.keyKind.rawValue] + bigEndian(header.cost.opsLimit) + bigEndian(header.cost.memLimit)
            + header.salt
        let kek: SecureKey
        if let known = cache[derivation] {
            kek = known
        } else {
            guard bytes == original || header.keyKind == .keyMaterial else { return nil }
            kek = try KeyMaterial.keyEncryptionKey(from: keySource, header: header, creating: false)
            cache[derivation] = kek
        }
        for (position, box) in wrapped.enumerated() {
            guard let master = try? Sodium.unwrap(box, additionalData: header.encoded, key: kek),
                master.count == SecureKey.byteCount
            else { continue }
            return (try ItemKeys(
                master: try SecureKey(copying: master), storeID: header.storeID, formatVersion: header.version), position)
        }
        return nil
    }
}
