package import Data

/// A set of attribute names as one bit per name (every raw value is below 64): the store plans each
/// query with these instead of `Set`s, which would allocate and hash on every operation.
package struct AttributeSet: Equatable {
    private(set) var bits: UInt64 = 0

    /// The empty set.
    package init() {}

    /// The set of `names`.
    package init(_ names: some Sequence<AttributeName>) {
        for name in names { insert(name) }
    }

    /// Adds `name`.
    package mutating func insert(_ name: AttributeName) { bits |= 1 << UInt64(name.rawValue) }

    /// Removes `name`.
    package mutating func remove(_ name: AttributeName) { bits &= ~(1 << UInt64(name.rawValue)) }

    /// Whether `name` is in the set.
    package func contains(_ name: AttributeName) -> Bool { bits & (1 << UInt64(name.rawValue)) != 0 }

    /// Whether every name of `other` is in this set.
    package func isSuperset(of other: AttributeSet) -> Bool { bits & other.bits == other.bits }

    /// Whether the set is empty.
    package var isEmpty: Bool { bits == 0 }

    /// The unique-key attributes of each class other than the access group, by class raw value.
    private static let uniqueKeys: [AttributeSet] = {
        var sets = [AttributeSet](repeating: AttributeSet(), count: Int(ItemClass.allCases.map(\.rawValue).max()!) + 1)
        for itemClass in ItemClass.allCases {
            var set = AttributeSet(itemClass.uniqueKey)
            set.remove(.accessGroup)
            sets[Int(itemClass.rawValue)] = set
        }
        return sets
    }()

    /// The unique-key attributes of `itemClass` other than the access group.
    package static func uniqueKey(of itemClass: ItemClass) -> AttributeSet { uniqueKeys[Int(itemClass.rawValue)] }
}
