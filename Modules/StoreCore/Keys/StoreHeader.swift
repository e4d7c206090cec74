package import Data

/// The store's header: format, identity and how its master key is wrapped. Stored beside a BLAKE2b
/// checksum of the header and the wrapped key (so accidental damage to either, or naive tampering, is
/// an integrity error rather than a wrong key) and used as the additional data of the wrapped master
/// key (so any change to it makes unwrapping fail).
package struct StoreHeader: Equatable {
    /// How the key-encryption key is obtained.
    package enum KeyKind: UInt8 {
        /// A passphrase through Argon2id.
        case passphrase = 1
        /// 32 bytes of key material (a key file, the environment, a credential).
        case keyMaterial = 2
    }

    package static let magic: [UInt8] = Array("HTK".utf8)
    /// The format new headers are written in: 4, whose stores write joint rows (``RowFormat``, from
    /// format 2), keep their rows digests sealed (``ItemKeys/sealsDigests``, from format 3), and count
    /// in the digest each unversioned row's ciphertexts (``ItemKeys/digestsCiphertexts``, from format 4).
    package static let currentVersion: UInt8 = 4
    /// The newest format a store whose rows carry versions (PostgreSQL) needs: format 4 changes only the
    /// digest of rows without one. Such stores are made, and moved by a rotation, up to this format.
    package static let versionedRowsFormat: UInt8 = 3
    /// The oldest format this build reads.
    package static let oldestVersion: UInt8 = 1
    package static let encodedCount = 3 + 1 + 16 + 1 + 8 + 8 + Sodium.saltBytes

    /// The file format version.
    package var version: UInt8 = currentVersion
    /// A random identity, bound into every item's additional data: ciphertext copied from another
    /// store with the same key does not decrypt here.
    package var storeID: [UInt8]
    /// How the key-encryption key is obtained.
    package var keyKind: KeyKind
    /// Argon2id cost (zero for key material).
    package var cost: Argon2Cost
    /// Argon2id salt, or the salt of the key-material KDF.
    package var salt: [UInt8]

    /// The header's bytes.
    package var encoded: [UInt8] {
        var bytes = Self.magic
        bytes.append(version)
        bytes += storeID
        bytes.append(keyKind.rawValue)
        bytes += bigEndian(cost.opsLimit) + bigEndian(cost.memLimit)
        bytes += salt
        return bytes
    }

    /// The checksum stored beside a header and the master key wrapped under it.
    package static func checksum(header: [UInt8], wrappedKey: [UInt8]) -> [UInt8] {
        Sodium.checksum(header + wrappedKey)
    }

    /// Decodes and checks a header: its checksum, magic, version, and that its KDF parameters are sane.
    ///
    /// Stores written before the checksum covered the wrapped key hold a checksum of the header alone,
    /// which is still accepted (the checksum is unkeyed: it catches damage, while tampering is caught by
    /// the wrapped key's authentication); the next change of key writes the current form.
    package init(decoding bytes: [UInt8], checksum: [UInt8], wrappedKey: [UInt8]) throws(SecureStoreError) {
        guard Self.checksum(header: bytes, wrappedKey: wrappedKey) == checksum || Sodium.checksum(bytes) == checksum
        else {
            throw .integrityFailure("the store header or wrapped key does not match its checksum")
        }
        guard bytes.count == Self.encodedCount, Array(bytes[0..<3]) == Self.magic else {
            throw .integrityFailure("the store header is malformed")
        }
        guard (Self.oldestVersion...Self.currentVersion).contains(bytes[3]) else {
            throw .storage(
                .store(
                    "the store has format version \(bytes[3]); this version of Hardtack reads versions \(Self.oldestVersion) "
                        + "to \(Self.currentVersion)", kind: .newerFormat))
        }
        guard let kind = KeyKind(rawValue: bytes[20]) else {
            throw .integrityFailure("the store header names an unknown key kind")
        }
        version = bytes[3]
        storeID = Array(bytes[4..<20])
        keyKind = kind
        cost = Argon2Cost(opsLimit: readBigEndian(bytes[21..<29]), memLimit: readBigEndian(bytes[29..<37]))
        salt = Array(bytes[37...])
        if kind == .passphrase && !cost.isWithinBounds {
            throw .integrityFailure("the store header's key-derivation parameters are out of range")
        }
    }

    /// `encoded` (a header's bytes) with its format byte set to each other format this build reads, and
    /// that format: what a header edited only in its format was written as. None for bytes of another
    /// size than a header's.
    package static func otherFormats(of encoded: [UInt8]) -> [(format: UInt8, encoded: [UInt8])] {
        guard encoded.count == encodedCount else { return [] }
        return (oldestVersion...currentVersion).filter { $0 != encoded[3] }.map { format in
            var variant = encoded
            variant[3] = format
            return (format, variant)
        }
    }

    /// A fresh header for a new store or a new key, of format `version`.
    package init(storeID: [UInt8], keyKind: KeyKind, cost: Argon2Cost, version: UInt8 = currentVersion) {
        self.version = version
        self.storeID = storeID
        self.keyKind = keyKind
        self.cost = keyKind == .passphrase ? cost : Argon2Cost(opsLimit: 0, memLimit: 0)
        self.salt = Sodium.randomBytes(Sodium.saltBytes)
    }
}

/// The 8 big-endian bytes of `value`.
package func bigEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
}

/// The value of 8 big-endian bytes.
package func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    bytes.reduce(0) { $0 << 8 | UInt64($1) }
}
