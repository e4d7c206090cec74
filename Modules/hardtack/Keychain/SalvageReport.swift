import Composition
import Data

/// What `salvage` prints: counts, what the rows digest says, and each lost item named by what is
/// still known of it. Never a secret.
struct SalvageReport {
    let salvaged: SalvagedStore
    let store: String
    let target: String

    /// Prints the report as text or as one JSON object.
    func print(json: Bool) {
        if json {
            let document = JSONValue.object([
                ("store", .string(store)), ("to", .string(target)), ("recovered", .count(salvaged.recovered)),
                ("lost", .count(salvaged.lostCount)), ("expected", salvaged.expected.map(JSONValue.count) ?? .null),
                ("matchesDigest", .bool(salvaged.matchesDigest)), ("partsRead", .count(salvaged.partsRead)),
                ("damagedParts", .count(salvaged.damagedParts)), ("candidates", .count(salvaged.candidates)),
                ("superseded", .count(salvaged.superseded)),
                (
                    "lostItems",
                    .array(
                        salvaged.lost.map { item in
                            .object([
                                ("row", item.rowID.map(JSONValue.integer) ?? .null),
                                ("class", item.itemClass.map { .string(AttributeText.classKey($0)) } ?? .null),
                                ("problem", .string(item.problem)),
                                ("attributes", item.name.map { Self.attributes($0) } ?? .null),
                            ])
                        })
                ),
            ])
            Console.print(document.rendered())
            return
        }
        let digest =
            switch (salvaged.expected, salvaged.matchesDigest) {
            case (nil, _): "none found (whether items left no trace cannot be told)"
            case (let count?, true): "\(count) items; the recovered rows match it"
            case (let count?, false): "\(count) items; the recovered rows do not match it"
            }
        Console.print(
            """
            store: \(store)
            recovered items: \(salvaged.recovered)\(salvaged.recovered > 0 ? " (written to \(target))" : "")
            lost items: \(salvaged.lostCount)\(salvaged.unaccounted > 0 ? " (\(salvaged.unaccounted) left no trace)" : "")
            rows digest: \(digest)
            read: \(salvaged.partsRead) parts (pages or rows), \(salvaged.damagedParts) failing their own check; \
            \(salvaged.candidates) copies of item rows, \(salvaged.superseded) older or duplicate copies set aside
            """)
        for item in salvaged.lost {
            let named = (item.name?.values ?? [:]).sorted { $0.key.key > $1.key.key }.compactMap { name, value in
                if case .string(let text) = value { "\(name.key) \(JSONValue.quoted(text))" } else { nil }
            }
            let row = item.rowID.map { "row \($0)" } ?? "a row"
            let kind = item.itemClass.map { ", " + AttributeText.classKey($0) } ?? ""
            let name = named.isEmpty ? "" : " (" + named.joined(separator: ", ") + ")"
            Console.print("lost: \(row)\(kind)\(name): \(item.problem)")
        }
    }

    /// The naming attributes of a lost item, as the dump shows attributes.
    private static func attributes(_ attributes: ItemAttributes) -> JSONValue {
        guard case .object(let members) = AttributeText.json(attributes.itemClass, attributes),
            let inner = members.first(where: { $0.0 == "attributes" })?.1
        else { return .null }
        return inner
    }
}
