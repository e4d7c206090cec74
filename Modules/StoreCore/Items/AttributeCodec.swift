package import Data
package import Foundation

/// The binary form of attributes: what is encrypted in each row, and what the blind indexes hash.
///
/// Each attribute is `name (1) ‖ kind (1) ‖ length (4, big-endian) ‖ bytes`; integers and dates
/// (milliseconds since 1970) are 8 big-endian bytes.
package enum AttributeCodec {
    /// Encodes every attribute, in name order.
    package static func encode(_ attributes: ItemAttributes) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        bytes.append(attributes.itemClass.rawValue)
        // Sorted pairs rather than sorted keys: no second lookup of each value.
        var pairs: [(name: AttributeName, value: AttributeValue)] = []
        pairs.reserveCapacity(attributes.values.count)
        for (name, value) in attributes.values { pairs.append((name, value)) }
        pairs.sort { $0.name < $1.name }
        for pair in pairs { append(pair.name, pair.value, to: &bytes) }
        return bytes
    }

    /// Appends one attribute (or an "absent" marker when `value` is nil) to `bytes`, with no
    /// intermediate copy of its value.
    package static func append(_ name: AttributeName, _ value: AttributeValue?, to bytes: inout [UInt8]) {
        bytes.append(name.rawValue)
        guard let value else {
            bytes.append(0)
            return
        }
        bytes.append(kindTag(value.kind))
        switch value {
        case .string(let text):
            var text = text
            text.withUTF8 { utf8 in
                appendBigEndian(UInt32(utf8.count), to: &bytes)
                bytes.append(contentsOf: utf8)
            }
        case .bytes(let raw):
            appendBigEndian(UInt32(raw.count), to: &bytes)
            bytes.append(contentsOf: raw)
        case .integer(let number):
            appendBigEndian(UInt32(8), to: &bytes)
            appendBigEndian(UInt64(bitPattern: number), to: &bytes)
        case .date(let date):
            appendBigEndian(UInt32(8), to: &bytes)
            appendBigEndian(UInt64(bitPattern: Int64((date.timeIntervalSince1970 * 1000).rounded())), to: &bytes)
        }
    }

    /// Decodes what ``encode(_:)`` wrote.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` if the bytes are malformed.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(SecureStoreError) -> ItemAttributes {
        let malformed = SecureStoreError.integrityFailure("an item's attributes are malformed")
        guard let first = bytes.first, let itemClass = ItemClass(rawValue: first) else { throw malformed }
        var values: [AttributeName: AttributeValue] = [:]
        var index = 1
        while index < bytes.count {
            guard index + 6 <= bytes.count, let name = AttributeName(rawValue: bytes[index]) else { throw malformed }
            let kind = bytes[index + 1]
            let count = Int(readBigEndian(bytes, at: index + 2, width: 4))
            index += 6
            guard count <= bytes.count - index else { throw malformed }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)])
            switch kind {
            case 1:
                guard let text = String(validating: payload, as: UTF8.self) else { throw malformed }
                values[name] = .string(text)
            case 2: values[name] = .bytes(Array(payload))
            case 3:
                guard count == 8 else { throw malformed }
                values[name] = .integer(Int64(bitPattern: readBigEndian(bytes, at: index, width: 8)))
            case 4:
                guard count == 8 else { throw malformed }
                let milliseconds = Int64(bitPattern: readBigEndian(bytes, at: index, width: 8))
                values[name] = .date(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            default: throw malformed
            }
            index += count
        }
        do {
            return try ItemAttributes(itemClass, values)
        } catch {
            throw malformed
        }
    }

    /// Rewrites the date attribute `name` in place in encoded attributes (same length, so the rest of
    /// the encoding is untouched); `false` when it is not there as an 8-byte date or the bytes are
    /// malformed, and `bytes` is then unchanged.
    package static func replaceDate(_ name: AttributeName, with date: Date, in bytes: inout [UInt8]) -> Bool {
        var index = 1
        while index + 6 <= bytes.count {
            let count = Int(bytes[index + 2]) << 24 | Int(bytes[index + 3]) << 16 | Int(bytes[index + 4]) << 8
                | Int(bytes[index + 5])
            let payload = index + 6
            guard count <= bytes.count - payload else { return false }
            if bytes[index] == name.rawValue {
                guard bytes[index + 1] == kindTag(.date), count == 8 else { return false }
                let milliseconds = UInt64(bitPattern: Int64((date.timeIntervalSince1970 * 1000).rounded()))
                for offset in 0..<8 { bytes[payload + offset] = UInt8(truncatingIfNeeded: milliseconds >> (56 - 8 * UInt64(offset))) }
                return true
            }
            index = payload + count
        }
        return false
    }

    private static func kindTag(_ kind: AttributeValue.Kind) -> UInt8 {
        switch kind {
        case .string: 1
        case .bytes: 2
        case .integer: 3
        case .date: 4
        }
    }

    private static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func readBigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for position in offset..<(offset + width) { value = value << 8 | UInt64(bytes[position]) }
        return value
    }
}
