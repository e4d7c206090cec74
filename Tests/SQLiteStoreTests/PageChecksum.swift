/// The checksum a page of a store file must end with, computed apart from the store's code (bit by
/// bit, without the C code or the CPU's instruction), for the tests that check or forge it.
enum PageChecksum {
    /// The store's page size.
    static let pageSize = 4096

    /// The last 8 bytes page `index` (from 0) of `file` must hold: two CRC-32C lanes over its first
    /// `pageSize - 8` bytes as 8-byte words (even-numbered words in the low lane, odd-numbered in the
    /// high one), each lane's register starting from the page number, stored little-endian.
    static func expected(_ file: [UInt8], page index: Int) -> [UInt8] {
        var lanes: [UInt32] = [~UInt32(index + 1), ~UInt32(index + 1)]
        for position in 0..<(pageSize - 8) {
            let lane = (position / 8) % 2
            var crc = lanes[lane] ^ UInt32(file[index * pageSize + position])
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            lanes[lane] = crc
        }
        let sum = UInt64(~lanes[1]) << 32 | UInt64(~lanes[0])
        return withUnsafeBytes(of: sum.littleEndian) { Array($0) }
    }
}
