/// The committed frames of a SQLite write-ahead log, read from its raw bytes
/// (https://www.sqlite.org/fileformat2.html#walformat): the header, then frames of a 24-byte header
/// and one page each. A frame counts while its salts are the header's and the running checksum holds;
/// only frames up to the last commit frame of that valid run are committed. Anything else (a log cut
/// short, a frame damaged) ends the run there: later frames are not known to have committed.
struct SQLiteWALFrames {
    /// The page size the log's header gives, or `nil` when the header is not valid.
    let pageSize: Int?
    /// The committed frames, oldest first: the page number and the page.
    let frames: [(page: Int, bytes: [UInt8])]

    /// The frames of the log `bytes` (empty when there is no valid header).
    init(_ bytes: [UInt8]) {
        guard bytes.count >= 32 else {
            (pageSize, frames) = (nil, [])
            return
        }
        let magic = Self.u32(bytes, 0)
        let size = Int(Self.u32(bytes, 8))
        guard magic & 0xFFFF_FFFE == 0x377F_0682, size >= 512, size <= 65536, size & (size - 1) == 0 else {
            (pageSize, frames) = (nil, [])
            return
        }
        let bigEndian = magic & 1 == 1
        var sum = Self.checksum(bytes[0..<24], bigEndian: bigEndian, from: (0, 0))
        guard sum == (Self.u32(bytes, 24), Self.u32(bytes, 28)) else {
            (pageSize, frames) = (nil, [])
            return
        }
        let salts = (Self.u32(bytes, 16), Self.u32(bytes, 20))
        var valid: [(page: Int, bytes: [UInt8])] = []
        var committed = 0
        var offset = 32
        while offset + 24 + size <= bytes.count {
            let header = offset
            guard (Self.u32(bytes, header + 8), Self.u32(bytes, header + 12)) == salts else { break }
            sum = Self.checksum(bytes[header..<(header + 8)], bigEndian: bigEndian, from: sum)
            sum = Self.checksum(bytes[(header + 24)..<(header + 24 + size)], bigEndian: bigEndian, from: sum)
            guard sum == (Self.u32(bytes, header + 16), Self.u32(bytes, header + 20)) else { break }
            let page = Int(Self.u32(bytes, header))
            guard page >= 1 else { break }
            valid.append((page, Array(bytes[(header + 24)..<(header + 24 + size)])))
            if Self.u32(bytes, header + 4) != 0 { committed = valid.count }
            offset += 24 + size
        }
        pageSize = size
        frames = Array(valid.prefix(committed))
    }

    /// The big-endian 32-bit number at `offset`.
    static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// SQLite's log checksum: over pairs of 32-bit words, s0 += x0 + s1, s1 += x1 + s0.
    private static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, from start: (UInt32, UInt32))
        -> (UInt32, UInt32)
    {
        var (s0, s1) = start
        var index = bytes.startIndex
        func word(_ at: Int) -> UInt32 {
            let b = (UInt32(bytes[at]), UInt32(bytes[at + 1]), UInt32(bytes[at + 2]), UInt32(bytes[at + 3]))
            return bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
        }
        while index + 8 <= bytes.endIndex {
            s0 = s0 &+ word(index) &+ s1
            s1 = s1 &+ word(index + 4) &+ s0
            index += 8
        }
        return (s0, s1)
    }
}
