public import Foundation

/// The value of one attribute: text, bytes, an integer or a date.
public enum AttributeValue: Sendable, Hashable {
    /// Text; compared byte for byte (no Unicode normalization), as Keychain Services does.
    case string(String)
    /// Raw bytes.
    case bytes([UInt8])
    /// A signed integer.
    case integer(Int64)
    /// A point in time, kept to the millisecond.
    case date(Date)

    /// Whether two values are the same: strings byte for byte, as documented and as the blind indexes
    /// compare them (Swift's own `==` on `String` would find a precomposed é equal to e with a
    /// combining accent, and a query for one would match the other).
    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
        case (.bytes(let a), .bytes(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        default: false
        }
    }

    /// Hashes the value consistently with ``==(_:_:)``: strings by their bytes.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let text):
            hasher.combine(0)
            for byte in text.utf8 { hasher.combine(byte) }
        case .bytes(let bytes):
            hasher.combine(1)
            hasher.combine(bytes)
        case .integer(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .date(let date):
            hasher.combine(3)
            hasher.combine(date)
        }
    }

    /// The four kinds of attribute value.
    public enum Kind: Sendable, Hashable {
        /// Text.
        case string
        /// Raw bytes.
        case bytes
        /// A signed integer.
        case integer
        /// A point in time.
        case date

        /// The value an absent unique-key attribute of this kind counts as: empty text or bytes, zero,
        /// or the 1970 epoch.
        public var emptyValue: AttributeValue {
            switch self {
            case .string: .string("")
            case .bytes: .bytes([])
            case .integer: .integer(0)
            case .date: .date(Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// The kind of this value.
    public var kind: Kind {
        switch self {
        case .string: .string
        case .bytes: .bytes
        case .integer: .integer
        case .date: .date
        }
    }

    /// The text, when this is a string value.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, when this is an integer value.
    public var integerValue: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The bytes, when this is a bytes value.
    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { value } else { nil }
    }

    /// The date, when this is a date value.
    public var dateValue: Date? {
        if case .date(let value) = self { value } else { nil }
    }
}
