import Composition
import Data
import StoreCore

/// The damage `verify` and `salvage` report, in the words they print (the library reports facts).
enum DamageWords {
    /// What is wrong with an item, as `problem` shows it.
    static func problem(_ damage: ItemDamage) -> String {
        switch damage {
        case .unreadableRow: "its row's cells could not be read"
        case .attributes: "its attributes do not decrypt"
        case .indexes: "its index cells disagree with its attributes"
        case .data: "its secret does not decrypt"
        }
    }

    /// A damaged or lost item on one line, as `row 7, genericPassword (service "api", account "alice"): its
    /// secret does not decrypt`; never a secret.
    static func line(_ item: UnsoundItem) -> String {
        let named = (item.name?.values ?? [:]).sorted { $0.key.key > $1.key.key }.compactMap { name, value in
            if case .string(let text) = value { "\(name.key) \(JSONValue.quoted(text))" } else { nil }
        }
        let row = item.rowID.map { "row \($0)" } ?? "a row"
        let kind = item.itemClass.map { ", " + AttributeText.classKey($0) } ?? ""
        let name = named.isEmpty ? "" : " (" + named.joined(separator: ", ") + ")"
        return "\(row)\(kind)\(name): \(problem(item.damage))"
    }

    /// A damaged or lost item as JSON: {"row", "class", "problem", "attributes"}, its naming attributes as
    /// the dump shows attributes.
    static func json(_ item: UnsoundItem) -> JSONValue {
        .object([
            ("row", item.rowID.map(JSONValue.integer) ?? .null),
            ("class", item.itemClass.map { .string(AttributeText.classKey($0)) } ?? .null),
            ("problem", .string(problem(item.damage))),
            ("attributes", item.name.map(attributes) ?? .null),
        ])
    }

    /// The naming attributes of an item, as the dump shows attributes.
    private static func attributes(_ attributes: ItemAttributes) -> JSONValue {
        guard case .object(let members) = AttributeText.json(attributes.itemClass, attributes),
            let inner = members.first(where: { $0.0 == "attributes" })?.1
        else { return .null }
        return inner
    }

    /// How the store file is cut short.
    static func shortfall(_ shortfall: FileShortfall) -> String {
        switch shortfall {
        case .empty: "the store file is empty (its header and every page are missing)"
        case .noHeader(let bytes): "the store file is cut short (\(bytes) bytes: its header and pages are missing)"
        case .missingPages(let present, let expected):
            "the store file is cut short (\(present) of its \(expected) pages are there; the rest are missing)"
        }
    }
}
