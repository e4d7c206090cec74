/// A fixed set of HTTP field names, asked whether it holds a name in any case: the names are kept by
/// length, so that a name is compared only with those of its own length (most fields a proxy passes on
/// match none, and are turned away by their length alone).
package struct HTTPFieldNameSet: Sendable {
    /// The names of each length, as bytes; index: the length.
    private let byLength: [[[UInt8]]]

    /// A set of `names`, HTTP tokens (ASCII).
    package init(_ names: [String]) {
        let longest = names.map(\.utf8.count).max() ?? 0
        var byLength = [[[UInt8]]](repeating: [], count: longest + 1)
        for name in names {
            byLength[name.utf8.count].append(Array(name.utf8))
        }
        self.byLength = byLength
    }

    /// Whether `name` is one of the set's names, compared as HTTP compares field names (ASCII letters in
    /// any case). Allocates nothing for a native string.
    package func contains(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count < byLength.count else { return false }
            return byLength[bytes.count].contains { String.caseInsensitiveEquals(bytes, $0) }
        }
    }
}
