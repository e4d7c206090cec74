package import Data
import Domain

/// The key hierarchy over a backend's header record: a random master key, wrapped under a
/// key-encryption key derived from the key source (Argon2id for a passphrase), with the header as
/// additional data. The master key is never written unwrapped; item keys are derived from it.
package enum KeyHierarchy {
    /// A new store's header record and keys, its master key protected by `keySource`.
    package static func newStore(keySource: KeySource, options: StoreOptions) throws(SecureStoreError)
        -> (header: StoreHeader, record: HeaderRecord, keys: ItemKeys)
    {
        try checkCost(of: keySource, options: options)
        let header = StoreHeader(
            storeID: Sodium.randomBytes(16), keyKind: keySource.isPassphrase ? .passphrase : .keyMaterial,
            cost: options.passphraseCost, version: options.newStoreFormat)
        let master = try SecureKey.random()
        let wrapped = try wrap(master, header: header, source: keySource)
        let keys = try ItemKeys(master: master, storeID: header.storeID, formatVersion: header.version)
        return (header, record(header, wrapped: wrapped), keys)
    }

    /// Derives the key-encryption key from `keySource` and unwraps the master key of `stored`.
    /// - Throws: ``SecureStoreError/wrongKey`` when `keySource` does not unlock it,
    ///   ``SecureStoreError/integrityFailure(_:)`` when the header was altered.
    package static func unlock(_ stored: HeaderRecord, keySource: KeySource) throws(SecureStoreError)
        -> (header: StoreHeader, keys: ItemKeys)
    {
        let header = try StoreHeader(decoding: stored.header, checksum: stored.checksum, wrappedKey: stored.wrappedKey)
        let kek = try KeyMaterial.keyEncryptionKey(from: keySource, header: header, creating: false)
        let master: SecretBytes
        do {
            master = try Sodium.unwrap(stored.wrappedKey, additionalData: header.encoded, key: kek)
        } catch .wrongKey {
            try refuseChangedFormat(header, wrappedKey: stored.wrappedKey, kek: kek)
            throw .wrongKey
        }
        guard master.count == SecureKey.byteCount else { throw .integrityFailure("the wrapped key has the wrong size") }
        return (
            header,
            try ItemKeys(
                master: try SecureKey(copying: master), storeID: header.storeID, formatVersion: header.version)
        )
    }

    /// Tells a header whose format byte was changed (a downgrade to a format whose digests are plain,
    /// say) from a wrong key: the key-encryption key does not depend on the format, so when the key
    /// unwraps under the header with another format, the key is right and the header was edited.
    /// Costs one more decryption per other format, only when unwrapping failed.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` naming both formats when that is what happened.
    private static func refuseChangedFormat(_ header: StoreHeader, wrappedKey: [UInt8], kek: SecureKey)
        throws(SecureStoreError)
    {
        for (format, written) in StoreHeader.otherFormats(of: header.encoded) {
            if (try? Sodium.unwrap(wrappedKey, additionalData: written, key: kek)) != nil {
                throw .integrityFailure(
                    "the store header says format \(header.version) but its key was wrapped under format \(format): "
                        + "the header was changed outside Hardtack")
            }
        }
    }

    /// Unlocks the engine's store again from its stored header record.
    package static func unlock(_ engine: StoreEngine, keySource: KeySource) throws(SecureStoreError) -> ItemKeys {
        guard let stored = try engine.storage.readHeaderRecord() else {
            throw .integrityFailure("the store header is missing")
        }
        let (header, keys) = try unlock(stored, keySource: keySource)
        engine.header = header
        return keys
    }

    /// Wraps the master key under `newSource` with a fresh salt and writes the new header in one
    /// transaction; no item is re-encrypted, so the master key stays the same (``KeyRotation`` makes a
    /// new one).
    package static func rewrap(_ engine: StoreEngine, to newSource: KeySource) throws(SecureStoreError) {
        guard let keys = engine.keys else { throw .locked }
        let (header, record) = try newRecord(engine, master: keys.master, source: newSource)
        try engine.writeTyped { () throws(SecureStoreError) in
            try engine.storage.replaceHeaderRecord(record)
        }
        engine.header = header
        // The old wrapped key must not linger where the backend keeps old copies.
        engine.storage.discardReplacedHeaderRecords()
    }

    /// The engine's store's header under a fresh salt with `master` wrapped under `source`, and its record.
    /// The store keeps its identity, and its format unless `version` says another (a rotation's, which
    /// re-seals every row: ``KeyRotation/format(after:rowVersions:)``); a re-wrap keeps the format, so a
    /// store stays readable by the Hardtack that made it (on a shared PostgreSQL store, by every instance
    /// not yet upgraded).
    static func newRecord(
        _ engine: StoreEngine, master: SecureKey, source: KeySource, version: UInt8? = nil
    ) throws(SecureStoreError) -> (header: StoreHeader, record: HeaderRecord) {
        // A header whose cost is out of bounds is refused as tampered when the store is next opened.
        try checkCost(of: source, options: engine.options)
        let header = StoreHeader(
            storeID: engine.header.storeID, keyKind: source.isPassphrase ? .passphrase : .keyMaterial,
            cost: engine.options.passphraseCost, version: version ?? engine.header.version)
        return (header, record(header, wrapped: try wrap(master, header: header, source: source)))
    }

    /// The record of `header` with its wrapped key and their checksum.
    private static func record(_ header: StoreHeader, wrapped: [UInt8]) -> HeaderRecord {
        HeaderRecord(
            header: header.encoded, checksum: StoreHeader.checksum(header: header.encoded, wrappedKey: wrapped),
            wrappedKey: wrapped)
    }

    /// Refuses a passphrase cost outside the bounds a header is checked against.
    private static func checkCost(of source: KeySource, options: StoreOptions) throws(SecureStoreError) {
        if source.isPassphrase, !options.passphraseCost.isWithinBounds {
            throw .invalidKeyMaterial("the Argon2id cost is outside the supported range")
        }
    }

    private static func wrap(_ master: SecureKey, header: StoreHeader, source: KeySource) throws(SecureStoreError)
        -> [UInt8]
    {
        let kek = try KeyMaterial.keyEncryptionKey(from: source, header: header, creating: true)
        return try master.withBytes { bytes throws(SecureStoreError) in
            try Sodium.seal(
                UnsafeRawBufferPointer(start: bytes, count: SecureKey.byteCount), additionalData: header.encoded,
                key: kek)
        }
    }
}
