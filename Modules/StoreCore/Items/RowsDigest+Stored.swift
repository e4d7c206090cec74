package import Data

/// Which rows digest a stored value is: bound into a sealed digest's additional data, so that one
/// digest (another group's, the registry) cannot stand in for another.
package enum DigestRole: Equatable, Sendable {
    /// The one digest of a store that keeps one for all its rows (SQLite, memory).
    case store
    /// The digest of one access group's rows, by the group's blind index.
    case group(BlindIndex)
    /// The registry: the digest of the set of access groups that have a digest row.
    case registry

    /// What the digest is, for messages.
    var name: String {
        self == .registry ? "the registry of the access groups' rows digests" : "the rows digest"
    }
}

/// The stored form of a digest.
///
/// Format 1 and 2 stores keep it plain: the count and the XOR of the rows' keyed hashes. Anyone who
/// reads two states of a plain digest (two backups of a file, the dead row versions a PostgreSQL table
/// keeps until vacuum, its write-ahead log) learns the XOR of the hashes of the rows written between
/// them: after one add, that row's own hash. With it, they could delete that row, or put an older copy
/// of it back, and fix the digest to match, at any later time. From format 3 the digest is sealed
/// (XChaCha20-Poly1305 under a key of its own, with a fresh nonce), so its states tell nothing about
/// any row's hash, and only the key's holder can write one a check accepts. (A format-3 store also
/// refuses a missing digest, ``StoreEngine/loadDigest(keys:)``, and a plain one in its place.)
extension RowsDigest {
    /// The size of a sealed digest: nonce, count and accumulator, tag.
    package static let sealedBytes = Sodium.nonceBytes + encodedBytes + Sodium.tagBytes

    /// Whether a digest in `role` carries the store's write generation: the store's own digest from
    /// format 4, where a rollback anchor (``RollbackAnchorFile``) can hold the newest generation written.
    package static func carriesGeneration(_ role: DigestRole, keys: ItemKeys) -> Bool {
        role == .store && keys.digestsCiphertexts
    }

    /// The digest as the store keeps it, in the role `role`: sealed in a store that seals its digests
    /// (``ItemKeys/sealsDigests``), with `generation` where the role carries one, else the plain
    /// ``encoded`` form.
    package func stored(_ role: DigestRole, keys: ItemKeys, generation: UInt64 = 0) throws(SecureStoreError) -> [UInt8] {
        guard keys.sealsDigests else { return encoded }
        var plain = encoded
        if Self.carriesGeneration(role, keys: keys) { plain += bigEndian(generation) }
        return try Sodium.seal(plain, additionalData: Self.additionalData(role, keys: keys), key: keys.digest)
    }

    /// Reads a digest the store kept in the role `role`.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when it is malformed, or, in a store that
    ///   seals its digests, when it is not one the store sealed in that role (a plain digest included).
    package init(stored: [UInt8], role: DigestRole, keys: ItemKeys) throws(SecureStoreError) {
        self = try Self.opened(stored, role: role, keys: keys).digest
    }

    /// Reads a digest the store kept in the role `role`, with its write generation (0 where the role
    /// carries none). Throws as ``init(stored:role:keys:)``.
    package static func opened(_ stored: [UInt8], role: DigestRole, keys: ItemKeys) throws(SecureStoreError)
        -> (digest: RowsDigest, generation: UInt64)
    {
        var encoded: [UInt8]
        var generation: UInt64 = 0
        if keys.sealsDigests {
            let carries = carriesGeneration(role, keys: keys)
            guard stored.count == Self.sealedBytes + (carries ? 8 : 0) else {
                throw .integrityFailure(
                    stored.count == Self.encodedBytes
                        ? "\(role.name) is not sealed, as every digest of a store of format 3 is (it was replaced outside the store)"
                        : "\(role.name) is malformed")
            }
            let opened = try Sodium.open(
                stored, additionalData: Self.additionalData(role, keys: keys), key: keys.digest, what: role.name)
            encoded = opened.withUnsafeBytes { Array($0) }
            if carries {
                generation = readBigEndian(encoded.suffix(8))
                encoded.removeLast(8)
            }
        } else {
            encoded = stored
        }
        guard let digest = RowsDigest(encoded: encoded) else {
            throw .integrityFailure("\(role.name) is missing or malformed")
        }
        return (digest, generation)
    }

    /// 'D', the role's tag, the store id and, for a group's digest, the group's index.
    private static func additionalData(_ role: DigestRole, keys: ItemKeys) -> [UInt8] {
        var data: [UInt8] = [0x44]
        switch role {
        case .store: data.append(1)
        case .group: data.append(2)
        case .registry: data.append(3)
        }
        data += keys.storeID
        if case .group(let group) = role { data += group.bytes }
        return data
    }
}
