import Data
import StoreCore
import Testing

/// The rows digest's hashes are computed on the stack and combined inline; what they hash, and the
/// stored form, stay byte for byte what stores already hold: each hash is checked against the message
/// written out the plain way and hashed through the array API, and the encoding field by field.
@Suite struct RowHashTests {
    /// The message the row hash covers, written out plainly: tag, id and class big-endian, each cell
    /// with its length, then the version for a versioned row.
    private func plainMessage(
        id: Int64, classCode: Int64, cells: [BlindIndex], version: Int64?
    ) -> [UInt8] {
        func bigEndian(_ value: Int64) -> [UInt8] {
            (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (56 - 8 * $0)) }
        }
        var message: [UInt8] = [version == nil ? 0x05 : 0x06] + bigEndian(id) + bigEndian(classCode)
        for cell in cells { message += [UInt8(cell.count)] + cell.bytes }
        if let version { message += bigEndian(version) }
        return message
    }

    private func randomIndex(_ count: Int) -> BlindIndex {
        let bytes = Sodium.randomBytes(count)
        return bytes.withUnsafeBytes { BlindIndex(copying: $0, expectedCount: count)! }
    }

    private func bytes(_ hash: RowHash) -> [UInt8] { hash.withUnsafeBytes { Array($0) } }

    @Test func rowAndGroupHashesHashTheSameMessagesAsThePlainWay() throws {
        let keys = try ItemKeys(master: try SecureKey.random(), storeID: Sodium.randomBytes(16), formatVersion: 3)
        for trial in 0..<200 {
            let id = Int64.random(in: Int64.min...Int64.max)
            let classCode = Int64.random(in: 0...255)
            let version: Int64? = trial % 2 == 0 ? nil : Int64.random(in: Int64.min...Int64.max)
            let cells = [randomIndex(16), randomIndex(16), randomIndex(trial % 3 == 0 ? 8 : 16)]
            let hash = try RowsDigest.rowHash(
                id: id, classCode: classCode, group: cells[0], unique: cells[1], primary: cells[2], version: version,
                keys: keys)
            let plain = try Sodium.keyedHash(
                plainMessage(id: id, classCode: classCode, cells: cells, version: version), key: keys.index, length: 16)
            #expect(bytes(hash) == plain)
            let group = cells[0]
            let groupMessage = [0x07, UInt8(group.count)] + group.bytes
            let plainGroup = try Sodium.keyedHash(groupMessage, key: keys.index, length: 16)
            #expect(bytes(try RowsDigest.groupHash(group, keys: keys)) == plainGroup)
        }
    }

    @Test func theEncodedDigestIsTheCountBigEndianThenTheXorOfTheHashes() throws {
        let keys = try ItemKeys(master: try SecureKey.random(), storeID: Sodium.randomBytes(16), formatVersion: 3)
        var digest = RowsDigest.empty
        var xor = [UInt8](repeating: 0, count: 16)
        let hashes = try (0..<5).map { id throws(SecureStoreError) in
            try RowsDigest.rowHash(
                id: Int64(id), classCode: 1, group: randomIndex(16), unique: randomIndex(16), primary: randomIndex(8),
                keys: keys)
        }
        for hash in hashes {
            digest.insert(hash)
            xor = zip(xor, bytes(hash)).map { $0 ^ $1 }
        }
        #expect(digest.encoded == [0, 0, 0, 0, 0, 0, 0, 5] + xor)
        #expect(RowsDigest(encoded: digest.encoded) == digest)
        // Removing every row again leaves the digest of no rows.
        for hash in hashes.reversed() { digest.remove(hash) }
        #expect(digest == .empty)
        #expect(digest.encoded == [UInt8](repeating: 0, count: 24))
        // A stored digest of the wrong length is malformed, not read short.
        #expect(RowsDigest(encoded: [UInt8](repeating: 0, count: 23)) == nil)
        #expect(RowsDigest(encoded: [UInt8](repeating: 0, count: 25)) == nil)
    }
}
