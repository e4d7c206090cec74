package import Data
import Domain

/// The export file's layout, version 3 (versions 1, without the header MAC, and 2, without the
/// padding, are still read):
///
///     header:  "HTKEXPRT" ‖ version (3) ‖ key kind (1: passphrase, 2: key file) ‖
///              Argon2id opslimit (8, big-endian) ‖ memlimit (8) ‖ salt (16) ‖ key check (16) ‖
///              header MAC (16) ‖ secretstream header (24); the key check and the MAC tell a wrong
///              export key from a changed header (``ExportHeader``)
///     then frames: length (4, big-endian) ‖ a secretstream message, every one bound to the header
///              as additional data; one message per item, then a final one holding the item count.
///     item:    class (1) ‖ attributes' length (4) ‖ attributes (the store's attribute encoding, with
///              the access group and dates) ‖ data's length (4) ‖ data ‖ padding (version 3: ISO/IEC
///              7816-4, 0x80 then zeros, to the next multiple of ``paddingBlock``, as the store pads
///              its own rows; so a message shows its item's size only to that bucket)
///     final:   "END" ‖ item count (8)
package enum ExportFormat {
    /// The file's first bytes.
    static let magic = Array("HTKEXPRT".utf8)
    /// The layout version this code writes (it reads this one and every earlier one).
    package static let version: UInt8 = 3
    /// The first version whose item messages are padded.
    static let firstPaddedVersion: UInt8 = 3
    /// Item messages are padded to a multiple of this many bytes: the store's own bucket for a row's
    /// plaintext (``ItemRow/paddingBlock``).
    package static let paddingBlock = ItemRow.paddingBlock
    /// The size of the Argon2id salt.
    static let saltBytes = 16
    /// The size of the key check.
    static let checkBytes = 16
    /// The header's size: everything before the first frame.
    package static let headerBytes = magic.count + 2 + 16 + saltBytes + 2 * checkBytes + SecretStream.headerBytes
    /// The largest frame a reader accepts (an item's data is at most a few MiB).
    static let maximumFrame = 16 << 20
    /// The final message's tag.
    static let endMark = Array("END".utf8)

    /// The stream key from `key` and the header's salt and cost.
    package static func streamKey(_ key: ExportKey, salt: [UInt8], cost: Argon2Cost) throws(SecureStoreError) -> SecureKey {
        switch key {
        case .passphrase(let passphrase):
            guard !passphrase.isEmpty else { throw .invalidKeyMaterial("the export passphrase is empty") }
            return try Sodium.argon2id(passphrase: passphrase, salt: salt, opsLimit: cost.opsLimit, memLimit: cost.memLimit)
        case .keyFile(let path):
            let material = try KeyMaterial.rawKey(from: .keyFile(path: path), creating: false)
            let key = try SecureKey()
            try key.fill { out throws(SecureStoreError) in
                try Sodium.keyedHash(Array("HTK-export".utf8) + salt, key: material, into: out, length: SecureKey.byteCount)
            }
            return key
        }
    }

    /// Pads `record` in place (ISO/IEC 7816-4: 0x80, then zeros) to the next multiple of
    /// ``paddingBlock``; at least one byte is added. The caller reserved the capacity, so the secret
    /// in `record` is not copied to a larger buffer on the way.
    static func pad(_ record: inout [UInt8]) {
        let padded = Sodium.paddedLength(record.count, block: paddingBlock)
        record.append(0x80)
        record.append(contentsOf: repeatElement(0, count: padded - record.count))
    }

    /// How many of `padded`'s bytes come before its padding (``pad(_:)``), or `nil` when it is not
    /// padded so: a length that is not a multiple of ``paddingBlock``, or no 0x80 after the last
    /// non-zero byte within the last block.
    static func unpaddedCount(_ padded: UnsafeRawBufferPointer) -> Int? {
        guard !padded.isEmpty, padded.count % paddingBlock == 0 else { return nil }
        var index = padded.count - 1
        while index > padded.count - paddingBlock, padded[index] == 0 { index -= 1 }
        return padded[index] == 0x80 ? index : nil
    }

    /// Appends `value` as 4 (or 8) big-endian bytes.
    static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The big-endian integer of `width` bytes at `offset`, or `nil` past the end.
    static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, width <= 8, offset + width <= bytes.count else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + width) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
