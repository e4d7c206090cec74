/// SQLite's record format (https://www.sqlite.org/fileformat2.html#record_format), read from raw
/// bytes by salvage: varints, a header of serial types, then the values. Every read is bounds-checked:
/// any bytes at all give a record or `nil`, never a crash.
enum SQLiteRecord {
    /// One value of a record, as far as salvage needs them.
    enum Value: Equatable {
        /// NULL (an `INTEGER PRIMARY KEY` column is stored as NULL; its value is the row id).
        case null
        /// An integer.
        case integer(Int64)
        /// A blob, or text (salvage reads no text column).
        case bytes([UInt8])
        /// A float (the store writes none).
        case real
    }

    /// The varint at `offset` (1 to 9 bytes, big-endian, 7 bits a byte, the ninth all 8) and its length.
    static func varint(_ bytes: [UInt8], at offset: Int, limit: Int? = nil) -> (value: Int64, length: Int)? {
        let end = min(limit ?? bytes.count, bytes.count)
        var value: UInt64 = 0
        for index in 0..<9 {
            guard offset + index < end, offset + index >= 0 else { return nil }
            let byte = bytes[offset + index]
            if index == 8 { return (Int64(bitPattern: (value << 8) | UInt64(byte)), 9) }
            value = (value << 7) | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (Int64(bitPattern: value), index + 1) }
        }
        return nil
    }

    /// The body size of a value of serial type `type`, or `nil` for the reserved types.
    static func size(ofSerialType type: Int64) -> Int? {
        switch type {
        case 0, 8, 9: 0
        case 1, 2, 3, 4: Int(type)
        case 5: 6
        case 6, 7: 8
        case 10, 11: nil
        default: type < 0 || type > Int64(Int32.max) ? nil : Int((type - 12) / 2)
        }
    }

    /// The values of the record that is exactly `payload`, or `nil` when it is not a well-formed record
    /// (a header past the end, a reserved type, a body that does not fill the payload exactly).
    static func values(_ payload: [UInt8], maxColumns: Int = 16) -> [Value]? {
        guard let (headerSize, first) = varint(payload, at: 0), headerSize >= 1, headerSize <= payload.count else {
            return nil
        }
        var types: [Int64] = []
        var offset = first
        while offset < Int(headerSize) {
            guard types.count < maxColumns, let (type, length) = varint(payload, at: offset, limit: Int(headerSize))
            else { return nil }
            types.append(type)
            offset += length
        }
        var body = Int(headerSize)
        var values: [Value] = []
        for type in types {
            guard let size = size(ofSerialType: type), body + size <= payload.count else { return nil }
            values.append(value(type, payload[body..<(body + size)]))
            body += size
        }
        return body == payload.count ? values : nil
    }

    private static func value(_ type: Int64, _ bytes: ArraySlice<UInt8>) -> Value {
        switch type {
        case 0: return .null
        case 8: return .integer(0)
        case 9: return .integer(1)
        case 7: return .real
        case 1...6:
            // Big-endian two's complement of 1 to 8 bytes.
            var value: Int64 = bytes.first.map { $0 & 0x80 != 0 ? -1 : 0 } ?? 0
            for byte in bytes { value = (value << 8) | Int64(byte) }
            return .integer(value)
        default: return .bytes(Array(bytes))
        }
    }
}
