#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
package import Data

/// The unlocked store's keys: the master key and the four subkeys derived from it, one per purpose,
/// so that a key never serves two algorithms.
///
/// Owned by one store under its lock; ``wipe()`` (on lock and close) zeroes all of them.
package final class ItemKeys {
    /// The master key, kept only to rewrap it when the passphrase or key source changes.
    package let master: SecureKey
    /// Encrypts each item's secret data.
    package let data: SecureKey
    /// Encrypts each item's attributes.
    package let attributes: SecureKey
    /// Keys the BLAKE2b blind indexes (access group, unique key, primary attribute).
    package let index: SecureKey
    /// Encrypts the stored rows digests, in a store of format 3 or later (``sealsDigests``).
    package let digest: SecureKey
    /// The store identity, bound into every item's additional data.
    package let storeID: [UInt8]
    /// The layout new rows are written in: the store's header format's (``RowFormat``). Reads take
    /// each row's own layout, whatever this is.
    package let rowFormat: RowFormat
    /// Whether the store keeps its rows digests sealed (format 3 and later), rather than as plain
    /// count and hash (``RowsDigest/stored(_:keys:)``). Reads of a store of format 3 refuse a plain one.
    package let sealsDigests: Bool
    /// Whether the rows digest commits to the ciphertexts of rows that carry no version (format 4 and
    /// later, ``RowsDigest/rowHash(id:classCode:group:unique:primary:version:ciphertexts:keys:)``), so
    /// that an older ciphertext of one row put back no longer matches.
    package let digestsCiphertexts: Bool

    /// Size of the access-group and unique-key indexes: 128 bits, so collisions never happen in practice.
    package static let indexBytes = 16
    /// The epoch of the master key, bound into the additional data of rows that carry a version. Always
    /// 0: a rotation (``KeyRotation``) replaces the master key itself, so every subkey changes with it
    /// and a row sealed under another key fails to open whatever its epoch; the field stays for the
    /// rows already written with it.
    package static let keyEpoch: UInt32 = 0
    /// Size of the primary-attribute index: 64 bits is enough, since every match it yields is then
    /// checked against the decrypted attributes.
    package static let primaryIndexBytes = 8

    // Buffers reused for every index message and every additional data, so building one allocates
    // nothing once they are large enough. Neither holds a secret: attribute values are not secret
    // (they are blinded only so the file does not show them), and additional data is public.
    private var message: [UInt8] = []
    private var associated: [UInt8] = []
    /// The last primary index computed and what it was computed from: queries of one service (one
    /// server, issuer, tag) follow each other, and this saves hashing it again. Cleared by ``wipe()``.
    private var lastPrimary: (itemClass: ItemClass, group: BlindIndex, value: AttributeValue?, index: BlindIndex)?

    /// The keys of a store whose master key is `master` and whose header has format `formatVersion`.
    package init(master: SecureKey, storeID: [UInt8], formatVersion: UInt8) throws(SecureStoreError) {
        self.master = master
        self.storeID = storeID
        self.rowFormat = RowFormat(headerVersion: formatVersion)
        self.sealsDigests = formatVersion >= 3
        self.digestsCiphertexts = formatVersion >= 4
        data = try Sodium.deriveSubkey(master, id: 1, context: "HTKitems")
        attributes = try Sodium.deriveSubkey(master, id: 2, context: "HTKitems")
        index = try Sodium.deriveSubkey(master, id: 3, context: "HTKitems")
        digest = try Sodium.deriveSubkey(master, id: 4, context: "HTKitems")
        message.reserveCapacity(256)
        associated.reserveCapacity(3 + 8 + storeID.count + 2 * Self.indexBytes + Self.primaryIndexBytes)
    }

    /// Zeroes every key.
    package func wipe() {
        lastPrimary = nil
        master.wipe()
        data.wipe()
        attributes.wipe()
        index.wipe()
        digest.wipe()
    }

    /// The blind index of an access group name.
    package func groupIndex(_ group: String) throws(SecureStoreError) -> BlindIndex {
        message.removeAll(keepingCapacity: true)
        message.append(0x01)
        message.append(contentsOf: group.utf8)
        return try hashMessage(length: Self.indexBytes)
    }

    /// The blind index of an item's unique key: its class, group and unique-key attributes, an absent
    /// one counting as empty (as ``SecureItemTransaction/add(_:data:)`` promises and Keychain Services
    /// does: an item with no account and one with an empty account are the same item).
    package func uniqueIndex(_ attributes: ItemAttributes, group: BlindIndex) throws(SecureStoreError) -> BlindIndex {
        startMessage(0x02, attributes.itemClass, group: group)
        for name in attributes.itemClass.uniqueKey where name != .accessGroup {
            AttributeCodec.append(name, attributes[name] ?? name.valueKind.emptyValue, to: &message)
        }
        return try hashMessage(length: Self.indexBytes)
    }

    /// The blind index of an item's primary attribute (service, server, issuer or application tag; part
    /// of the unique key, so absent counts as empty here too): the first 8 bytes of a 16-byte hash.
    package func primaryIndex(_ itemClass: ItemClass, value: AttributeValue?, group: BlindIndex) throws(SecureStoreError)
        -> BlindIndex
    {
        if let last = lastPrimary, last.itemClass == itemClass, last.group == group, Self.sameBytes(last.value, value) {
            return last.index
        }
        startMessage(0x03, itemClass, group: group)
        let name = itemClass.primaryAttribute
        AttributeCodec.append(name, value ?? name.valueKind.emptyValue, to: &message)
        let full = try hashMessage(length: 16)
        let primary = full.withUnsafeBytes { raw in
            BlindIndex(copying: UnsafeRawBufferPointer(rebasing: raw[0..<Self.primaryIndexBytes]),
                expectedCount: Self.primaryIndexBytes)!
        }
        lastPrimary = (itemClass, group, value, primary)
        return primary
    }

    /// Whether two values encode to the same bytes. Not `==`: two strings that Swift finds equal (one
    /// with a precomposed é, one with e and a combining accent) are different values to the store.
    private static func sameBytes(_ lhs: AttributeValue?, _ rhs: AttributeValue?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (.string(var a), .string(var b)):
            a.withUTF8 { x in
                b.withUTF8 { y in x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
            }
        case (.bytes(let a), .bytes(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        default: false
        }
    }

    /// Calls `body` with the additional data that binds a ciphertext to its store, row, column, class
    /// and indexes: layout format (1, or 2 for a joint row) ‖ column ‖ class ‖ row id (8, big-endian) ‖ store id ‖ group ‖ unique ‖ primary,
    /// and for a row that carries a version, ‖ row version (8, big-endian) ‖ key epoch (4, big-endian;
    /// always 0, see ``keyEpoch``).
    package func withAdditionalData<Result>(
        column: UInt8, row: ItemRow, _ body: ([UInt8]) throws(SecureStoreError) -> Result
    ) throws(SecureStoreError) -> Result {
        associated.removeAll(keepingCapacity: true)
        // The layout's format: 1 for either ciphertext of a format-1 row, 2 for a joint row's one.
        associated.append(column == ItemRow.jointColumn ? 2 : 1)
        associated.append(column)
        associated.append(row.itemClass.rawValue)
        let id = UInt64(bitPattern: row.id)
        withUnsafeBytes(of: id.bigEndian) { associated.append(contentsOf: $0) }
        associated.append(contentsOf: storeID)
        row.group.withUnsafeBytes { associated.append(contentsOf: $0) }
        row.unique.withUnsafeBytes { associated.append(contentsOf: $0) }
        row.primary.withUnsafeBytes { associated.append(contentsOf: $0) }
        if let version = row.version {
            withUnsafeBytes(of: UInt64(bitPattern: version).bigEndian) { associated.append(contentsOf: $0) }
            withUnsafeBytes(of: Self.keyEpoch.bigEndian) { associated.append(contentsOf: $0) }
        }
        return try body(associated)
    }

    private func startMessage(_ purpose: UInt8, _ itemClass: ItemClass, group: BlindIndex) {
        message.removeAll(keepingCapacity: true)
        message.append(purpose)
        message.append(itemClass.rawValue)
        group.withUnsafeBytes { message.append(contentsOf: $0) }
    }

    private func hashMessage(length: Int) throws(SecureStoreError) -> BlindIndex {
        var output = BlindIndex(count: length)
        try Sodium.keyedHash(message, key: index, into: &output)
        return output
    }
}
