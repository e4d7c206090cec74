/// HTTP header fields with case-insensitive names, in the order they were added.
public struct HTTPHeaders: Sendable, Sequence {
    private var fields: [(name: String, value: String)] = []

    /// No fields.
    public init() {}

    /// Fields from name–value pairs.
    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { add(name, value) }
    }

    /// The first value of `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveEquals(name) }
            if let newValue { fields.append((name, newValue)) }
        }
    }

    /// Appends a field, keeping earlier ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Makes room for `count` fields in all, so that adding them grows the storage at most once.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// How many fields there are.
    public var count: Int { fields.count }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

extension String {
    /// ASCII case-insensitive equality, as HTTP field names (tokens, ASCII only) compare: the same bytes
    /// but for the case of ASCII letters. Allocates nothing.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Native strings' bytes are read in place (a field name is compared with many names per request).
        if let equal = utf8.withContiguousStorageIfAvailable({ mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in Self.caseInsensitiveEquals(mine, theirs) }
        }), let equal {
            return equal
        }
        return Self.caseInsensitiveEquals(Array(utf8)[...], Array(other.utf8)[...])
    }

    /// ASCII case-insensitive equality of two byte strings of the same length.
    static func caseInsensitiveEquals(
        _ mine: some RandomAccessCollection<UInt8>, _ theirs: some RandomAccessCollection<UInt8>
    ) -> Bool {
        for (a, b) in zip(mine, theirs) where a != b {
            let folded = a | 0x20
            guard folded == b | 0x20, folded >= 0x61, folded <= 0x7A else { return false }
        }
        return true
    }
}

extension Substring {
    /// Without the spaces and tabs (HTTP's optional whitespace) at either end.
    package func trimmingOptionalWhitespace() -> Substring {
        // Spaces and tabs are whole characters, so the bytes between them begin and end on characters.
        Substring(utf8.trimmingOptionalWhitespace())
    }
}

extension BidirectionalCollection<UInt8> {
    /// The bytes without the spaces and tabs (HTTP's optional whitespace) at either end.
    @inlinable
    package func trimmingOptionalWhitespace() -> SubSequence {
        var bytes = self[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return bytes
    }
}

extension HTTPHeaders: CustomStringConvertible, CustomReflectable {
    /// The field names only: values (an `Authorization` header, a cookie) may be secret.
    public var description: String { "HTTPHeaders(" + fields.map(\.name).joined(separator: ", ") + ")" }
    /// A mirror with no children, so `dump` shows no value.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
