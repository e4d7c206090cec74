/// An item class with attribute values: the query of a find, update or delete, the attributes of a new
/// item, or the changes of an update.
///
/// Build one with the per-class factories (``genericPassword(service:account:accessGroup:label:comment:description:generic:)``
/// and its siblings), whose argument labels make a misspelt or misplaced attribute a compile error. The
/// throwing ``init(_:_:)`` serves dynamic callers (a command line, a decoder) and rejects an attribute
/// the class does not allow with ``SecureStoreError/attributeNotAllowed(_:_:)``.
public struct ItemAttributes: Sendable, Hashable {
    /// The item class.
    public let itemClass: ItemClass
    /// The attribute values present; an absent attribute matches anything in a query.
    public private(set) var values: [AttributeName: AttributeValue]

    /// Creates attributes from dynamic values, checking each against the class.
    /// - Throws: ``SecureStoreError/attributeNotAllowed(_:_:)`` for an attribute the class does not
    ///   allow, ``SecureStoreError/invalidAttributeValue(_:expected:)`` for a value of the wrong kind.
    public init(_ itemClass: ItemClass, _ values: [AttributeName: AttributeValue]) throws(SecureStoreError) {
        for (name, value) in values {
            guard itemClass.allows(name) else { throw .attributeNotAllowed(name, itemClass) }
            guard value.kind == name.valueKind else {
                throw .invalidAttributeValue(name, expected: name.valueKind)
            }
        }
        self.itemClass = itemClass
        self.values = values
    }

    /// Creates attributes that the factories have already checked.
    init(checked itemClass: ItemClass, _ values: [AttributeName: AttributeValue?]) {
        self.itemClass = itemClass
        self.values = values.compactMapValues { $0 }
    }

    /// The value of `name`, if present.
    public subscript(name: AttributeName) -> AttributeValue? { values[name] }

    /// The text value of `name`, if present and text.
    public func string(_ name: AttributeName) -> String? { values[name]?.stringValue }

    /// The access group, when given.
    public var accessGroup: String? { string(.accessGroup) }

    /// These attributes with `name` set to `value`, or removed when `value` is `nil`.
    /// - Throws: ``SecureStoreError/attributeNotAllowed(_:_:)`` or
    ///   ``SecureStoreError/invalidAttributeValue(_:expected:)`` as ``init(_:_:)`` does.
    public func setting(_ name: AttributeName, to value: AttributeValue?) throws(SecureStoreError) -> ItemAttributes {
        var copy = values
        copy[name] = value
        return try ItemAttributes(itemClass, copy)
    }

    /// Sets a value the store itself keeps (the access group, the dates), skipping the read-only
    /// check. For store implementations only.
    public mutating func setStoreManaged(_ name: AttributeName, _ value: AttributeValue?) {
        values[name] = value
    }

    /// Makes room for `count` more values, so that setting several store-managed values one after the
    /// other copies and grows the values once. For store implementations only.
    public mutating func reserveCapacity(forAdditional count: Int) {
        values.reserveCapacity(values.count + count)
    }

    /// Whether every value in `query` equals the value here. Absent query values match anything; an
    /// absent unique-key attribute here counts as empty, as it does in the unique key.
    public func matches(_ query: ItemAttributes) -> Bool {
        guard query.itemClass == itemClass else { return false }
        let uniqueKey = itemClass.uniqueKey
        for (name, value) in query.values {
            let stored = values[name] ?? (uniqueKey.contains(name) ? name.valueKind.emptyValue : nil)
            if stored != value { return false }
        }
        return true
    }
}
