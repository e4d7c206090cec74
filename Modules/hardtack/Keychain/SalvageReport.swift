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
                ("lostItems", .array(salvaged.lost.map(DamageWords.json))),
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
        for item in salvaged.lost { Console.print("lost: " + DamageWords.line(item)) }
    }
}
