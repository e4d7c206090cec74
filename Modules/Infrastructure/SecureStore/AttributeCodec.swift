import Data
import Foundation

/// The binary form of attributes: what is encrypted in each row, and what the blind indexes hash.
///
/// Each attribute is `name (1) ‖ kind (1) ‖ length (4, big-endian) ‖ bytes`; integers and dates
/// (milliseconds since 1970) are 8 big-endian bytes.
enum AttributeCodec {
    /// Encodes every attribute, in name order.
    static func encode(_ attributes: ItemAttributes) -> [UInt8] {
        var bytes: [UInt8] = [attributes.itemClass.rawValue]
        for name in attributes.values.keys.sorted() {
            append(name, attributes.values[name], to: &bytes)
        }
        return bytes
    }

    /// Appends one attribute (or an "absent" marker when `value` is nil) to `bytes`.
    static func append(_ name: AttributeName, _ value: AttributeValue?, to bytes: inout [UInt8]) {
        bytes.append(name.rawValue)
        guard let value else {
            bytes.append(0)
            return
        }
        let payload: [UInt8]
        switch value {
        case .string(let text): payload = Array(text.utf8)
        case .bytes(let raw): payload = raw
        case .integer(let number): payload = bigEndian(UInt64(bitPattern: number))
        case .date(let date):
            payload = bigEndian(UInt64(bitPattern: Int64((date.timeIntervalSince1970 * 1000).rounded())))
        }
        bytes.append(kindTag(value.kind))
        let count = UInt32(payload.count)
        bytes += [UInt8(count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8),
            UInt8(truncatingIfNeeded: count)]
        bytes += payload
    }

    /// Decodes what ``encode(_:)`` wrote.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` if the bytes are malformed.
    static func decode(_ bytes: some RandomAccessCollection<UInt8>) throws(SecureStoreError) -> ItemAttributes {
        let bytes = Array(bytes)
        let malformed = SecureStoreError.integrityFailure("an item's attributes are malformed")
        guard let first = bytes.first, let itemClass = ItemClass(rawValue: first) else { throw malformed }
        var values: [AttributeName: AttributeValue] = [:]
        var index = 1
        while index < bytes.count {
            guard index + 6 <= bytes.count, let name = AttributeName(rawValue: bytes[index]) else { throw malformed }
            let kind = bytes[index + 1]
            let count = bytes[(index + 2)..<(index + 6)].reduce(0) { $0 << 8 | Int($1) }
            index += 6
            guard index + count <= bytes.count else { throw malformed }
            let payload = Array(bytes[index..<(index + count)])
            index += count
            switch kind {
            case 1:
                guard let text = String(validating: payload, as: UTF8.self) else { throw malformed }
                values[name] = .string(text)
            case 2: values[name] = .bytes(payload)
            case 3:
                guard count == 8 else { throw malformed }
                values[name] = .integer(Int64(bitPattern: readBigEndian(payload[...])))
            case 4:
                guard count == 8 else { throw malformed }
                let milliseconds = Int64(bitPattern: readBigEndian(payload[...]))
                values[name] = .date(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            default: throw malformed
            }
        }
        do {
            return try ItemAttributes(itemClass, values)
        } catch {
            throw malformed
        }
    }

    private static func kindTag(_ kind: AttributeValue.Kind) -> UInt8 {
        switch kind {
        case .string: 1
        case .bytes: 2
        case .integer: 3
        case .date: 4
        }
    }
}
