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

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

extension String {
    /// ASCII case-insensitive equality, as HTTP field names compare.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}

extension HTTPHeaders: CustomStringConvertible, CustomReflectable {
    /// The field names only: values (an `Authorization` header, a cookie) may be secret.
    public var description: String { "HTTPHeaders(" + fields.map(\.name).joined(separator: ", ") + ")" }
    /// A mirror with no children, so `dump` shows no value.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
