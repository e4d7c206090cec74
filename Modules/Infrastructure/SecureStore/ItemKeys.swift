import Data

/// The unlocked store's keys: the master key and the three subkeys derived from it, one per purpose,
/// so that a key never serves two algorithms.
///
/// Owned by one store under its lock; ``wipe()`` (on lock and close) zeroes all of them.
final class ItemKeys {
    /// The master key, kept only to rewrap it when the passphrase or key source changes.
    let master: SecureKey
    /// Encrypts each item's secret data.
    let data: SecureKey
    /// Encrypts each item's attributes.
    let attributes: SecureKey
    /// Keys the BLAKE2b blind indexes (access group, unique key, primary attribute).
    let index: SecureKey
    /// The store identity, bound into every item's additional data.
    let storeID: [UInt8]

    /// Size of the access-group and unique-key indexes: 128 bits, so collisions never happen in practice.
    static let indexBytes = 16
    /// Size of the primary-attribute index: 64 bits is enough, since every match it yields is then
    /// checked against the decrypted attributes.
    static let primaryIndexBytes = 8

    init(master: SecureKey, storeID: [UInt8]) throws(SecureStoreError) {
        self.master = master
        self.storeID = storeID
        data = try Sodium.deriveSubkey(master, id: 1, context: "HTKitems")
        attributes = try Sodium.deriveSubkey(master, id: 2, context: "HTKitems")
        index = try Sodium.deriveSubkey(master, id: 3, context: "HTKitems")
    }

    /// Zeroes every key.
    func wipe() {
        master.wipe()
        data.wipe()
        attributes.wipe()
        index.wipe()
    }

    /// The blind index of an access group name.
    func groupIndex(_ group: String) throws(SecureStoreError) -> [UInt8] {
        try Sodium.keyedHash([0x01] + Array(group.utf8), key: index, length: Self.indexBytes)
    }

    /// The blind index of an item's unique key: its class, group and unique-key attributes, an absent
    /// one counting as empty (as ``SecureItemTransaction/add(_:data:)`` promises and Keychain Services
    /// does: an item with no account and one with an empty account are the same item).
    func uniqueIndex(_ attributes: ItemAttributes, group: [UInt8]) throws(SecureStoreError) -> [UInt8] {
        var message: [UInt8] = [0x02, attributes.itemClass.rawValue] + group
        for name in attributes.itemClass.uniqueKey where name != .accessGroup {
            AttributeCodec.append(name, attributes[name] ?? name.valueKind.emptyValue, to: &message)
        }
        return try Sodium.keyedHash(message, key: index, length: Self.indexBytes)
    }

    /// The blind index of an item's primary attribute (service, server, issuer or application tag; part
    /// of the unique key, so absent counts as empty here too).
    func primaryIndex(_ itemClass: ItemClass, value: AttributeValue?, group: [UInt8]) throws(SecureStoreError)
        -> [UInt8]
    {
        var message: [UInt8] = [0x03, itemClass.rawValue] + group
        let name = itemClass.primaryAttribute
        AttributeCodec.append(name, value ?? name.valueKind.emptyValue, to: &message)
        return Array(try Sodium.keyedHash(message, key: index, length: 16).prefix(Self.primaryIndexBytes))
    }

    /// The additional data that binds a ciphertext to its store, row, column, class and indexes.
    func additionalData(column: UInt8, row: ItemRow) -> [UInt8] {
        var bytes: [UInt8] = [StoreHeader.currentVersion, column, row.itemClass.rawValue]
        bytes += bigEndian(UInt64(bitPattern: row.id))
        bytes += storeID
        bytes += row.group
        bytes += row.unique
        bytes += row.primary
        return bytes
    }
}
