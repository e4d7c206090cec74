package import Data
package import Foundation

/// The compact binary form of attributes inside a joint row's ciphertext (``RowFormat/joint``).
///
/// `class (1)`, then each attribute in name order as `name (1)` and its value: strings and bytes as a
/// LEB128 length and the bytes, integers and dates (milliseconds since 1970) as 8 big-endian bytes.
/// An attribute's kind is not written: every name holds one kind (``AttributeName/valueKind``), which
/// ``ItemAttributes`` enforces. A generic password of the usual shape takes 70 bytes here against 92
/// in ``AttributeCodec``, which stays the form the blind indexes hash and format-1 rows hold.
package enum CompactAttributeCodec {
    /// Appends the encoding of `attributes` to `bytes`; the caller wipes `bytes` when done.
    package static func encode(_ attributes: ItemAttributes, into bytes: inout [UInt8]) {
        bytes.append(attributes.itemClass.rawValue)
        var pairs: [(name: AttributeName, value: AttributeValue)] = []
        pairs.reserveCapacity(attributes.values.count)
        for (name, value) in attributes.values { pairs.append((name, value)) }
        pairs.sort { $0.name < $1.name }
        for (name, value) in pairs {
            bytes.append(name.rawValue)
            switch value {
            case .string(let text):
                var text = text
                text.withUTF8 { utf8 in
                    appendLength(utf8.count, to: &bytes)
                    bytes.append(contentsOf: utf8)
                }
            case .bytes(let raw):
                appendLength(raw.count, to: &bytes)
                bytes.append(contentsOf: raw)
            case .integer(let number): appendBigEndian(UInt64(bitPattern: number), to: &bytes)
            case .date(let date): appendBigEndian(UInt64(bitPattern: milliseconds(date)), to: &bytes)
            }
        }
    }

    /// Decodes what ``encode(_:into:)`` wrote.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` if the bytes are malformed.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(SecureStoreError) -> ItemAttributes {
        let malformed = SecureStoreError.integrityFailure("an item's attributes are malformed")
        guard let first = bytes.first, let itemClass = ItemClass(rawValue: first) else { throw malformed }
        var values: [AttributeName: AttributeValue] = [:]
        let wellFormed = try forEachAttribute(in: bytes) { name, range throws(SecureStoreError) in
            guard values[name] == nil else { throw malformed }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[range])
            switch name.valueKind {
            case .string:
                guard let text = String(validating: payload, as: UTF8.self) else { throw malformed }
                values[name] = .string(text)
            case .bytes: values[name] = .bytes(Array(payload))
            case .integer: values[name] = .integer(Int64(bitPattern: readBigEndian(bytes, at: range.lowerBound)))
            case .date:
                let milliseconds = Int64(bitPattern: readBigEndian(bytes, at: range.lowerBound))
                values[name] = .date(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            }
            return true
        }
        guard wellFormed else { throw malformed }
        do {
            return try ItemAttributes(itemClass, values)
        } catch {
            throw malformed
        }
    }

    /// Rewrites the date attribute `name` in place (same length, so the rest is untouched); `false`
    /// when it is not there or the bytes are malformed, and `bytes` is then unchanged.
    package static func replaceDate(_ name: AttributeName, with date: Date, in bytes: inout [UInt8]) -> Bool {
        guard name.valueKind == .date else { return false }
        var offset: Int?
        bytes.withUnsafeBytes { raw in
            _ = forEachAttribute(in: raw) { found, range in
                if found == name { offset = range.lowerBound }
                return offset == nil
            }
        }
        guard let offset else { return false }
        let value = UInt64(bitPattern: milliseconds(date))
        for position in 0..<8 { bytes[offset + position] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(position))) }
        return true
    }

    /// Calls `visit` with each attribute's name and the range of its value's bytes, in order (after the
    /// class byte), until it returns `false`; `false` when the walk met malformed bytes (an unknown
    /// name, a length or a fixed-size value running past the end) before `visit` stopped it.
    private static func forEachAttribute<Failure: Error>(
        in bytes: UnsafeRawBufferPointer, _ visit: (AttributeName, Range<Int>) throws(Failure) -> Bool
    ) throws(Failure) -> Bool {
        var index = 1
        while index < bytes.count {
            guard let name = AttributeName(rawValue: bytes[index]) else { return false }
            index += 1
            let count: Int
            switch name.valueKind {
            case .string, .bytes:
                guard let length = readLength(bytes, at: &index) else { return false }
                count = length
            case .integer, .date:
                count = 8
            }
            guard count <= bytes.count - index else { return false }
            guard try visit(name, index..<(index + count)) else { return true }
            index += count
        }
        return true
    }

    /// Appends `count` as LEB128: 7 bits a byte, low bits first, the high bit set on all but the last.
    package static func appendLength(_ count: Int, to bytes: inout [UInt8]) {
        var rest = UInt64(count)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Reads a LEB128 length at `index` and moves past it; `nil` when it runs off the end or is longer
    /// than five bytes (35 bits: more than any length ``appendLength(_:to:)`` writes for an item).
    package static func readLength(_ bytes: UnsafeRawBufferPointer, at index: inout Int) -> Int? {
        var value = 0
        for shift in stride(from: 0, to: 35, by: 7) {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            value |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func readBigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for position in offset..<(offset + 8) { value = value << 8 | UInt64(bytes[position]) }
        return value
    }
}
