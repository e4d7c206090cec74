public import Data
import StoreCore

/// One item a check found damaged or a salvage could not bring back, named by what can still be known of
/// it (its row, class and naming attributes); never a secret.
public struct UnsoundItem: Sendable, Hashable {
    /// What is wrong with the item.
    public enum Damage: Sendable, Hashable {
        /// Its row's cells could not be read (an unknown class, a cell of the wrong size or type).
        case unreadableRow
        /// Its attributes do not decrypt or authenticate with the store's key.
        case attributes
        /// Its attributes decrypt but its index cells disagree with them.
        case indexes
        /// Its attributes are sound but its secret does not decrypt.
        case data
    }

    /// The row that holds it, when known.
    public let rowID: Int64?
    /// Its class, when known.
    public let itemClass: ItemClass?
    /// What is wrong.
    public let damage: Damage
    /// The attributes that name it (service or server, account, label), when they still decrypt.
    public let name: ItemAttributes?

    /// An item the store's check found damaged.
    init(_ item: DamagedItem) {
        rowID = item.rowID
        itemClass = item.itemClass
        damage =
            switch item.damage {
            case .attributes: .attributes
            case .indexes: .indexes
            case .data: .data
            }
        name = Self.name(item.itemClass, item.name)
    }

    /// An item salvage could not bring back.
    init(_ item: LostItem) {
        rowID = item.rowID
        itemClass = item.itemClass
        damage =
            switch item.reason {
            case .unreadableRow: .unreadableRow
            case .attributes: .attributes
            case .indexes: .indexes
            case .data: .data
            }
        name = item.itemClass.flatMap { Self.name($0, item.name) }
    }

    /// The naming attributes as attributes of `itemClass`, when there are any.
    private static func name(_ itemClass: ItemClass, _ values: [AttributeName: AttributeValue]) -> ItemAttributes? {
        values.isEmpty ? nil : try? ItemAttributes(itemClass, values)
    }
}
