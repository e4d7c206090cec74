package import Data

/// How the store answers a query: through the unique index (every unique-key attribute is given),
/// through the primary-attribute index, or by scanning the class in each group; and whether the rows
/// found must then be checked against the decrypted attributes.
package struct QueryPlan {
    /// Every unique-key attribute other than the access group is given: at most one item per group.
    package let byUnique: Bool
    /// Not by unique key, but the primary attribute (service, server, issuer, tag) is given.
    package let byPrimary: Bool
    /// Some given attribute is not answered exactly by the index used (the primary index is
    /// truncated, so it is always checked), so each row's decrypted attributes must match.
    package let mustCheck: Bool

    /// The query names its item by unique key and nothing else: the index alone answers it.
    package var isExactlyUnique: Bool { byUnique && !mustCheck }

    /// Plans `query`.
    package init(_ query: ItemAttributes) {
        let itemClass = query.itemClass
        var named = AttributeSet()
        for name in query.values.keys where name != .accessGroup { named.insert(name) }
        let uniqueNames = AttributeSet.uniqueKey(of: itemClass)
        byUnique = named.isSuperset(of: uniqueNames)
        byPrimary = !byUnique && named.contains(itemClass.primaryAttribute)
        mustCheck = byUnique ? !uniqueNames.isSuperset(of: named) : !named.isEmpty
    }
}
