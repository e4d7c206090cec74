public import Data
public import StoreCore

/// One item a check found damaged or a salvage could not bring back, named by what can still be known of
/// it (its row, class and naming attributes); never a secret.
public struct UnsoundItem: Sendable, Hashable {
    /// The row that holds it, when known.
    public let rowID: Int64?
    /// Its class, when known.
    public let itemClass: ItemClass?
    /// What is wrong.
    public let damage: ItemDamage
    /// The attributes that name it (service or server, account, label), when they still decrypt.
    public let name: ItemAttributes?

    /// An item the store's check found damaged.
    init(_ item: DamagedItem) {
        rowID = item.rowID
        itemClass = item.itemClass
        damage = item.damage
        name = Self.name(item.itemClass, item.name)
    }

    /// An item salvage could not bring back.
    init(_ item: LostItem) {
        rowID = item.rowID
        itemClass = item.itemClass
        damage = item.reason
        name = item.itemClass.flatMap { Self.name($0, item.name) }
    }

    /// The naming attributes as attributes of `itemClass`, when there are any.
    private static func name(_ itemClass: ItemClass, _ values: [AttributeName: AttributeValue]) -> ItemAttributes? {
        values.isEmpty ? nil : try? ItemAttributes(itemClass, values)
    }
}
