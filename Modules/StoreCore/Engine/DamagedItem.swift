public import Data

/// One damaged item as ``StoreEngine/verify()`` found it, named by what can still be known of it:
/// its row, its class when the class cell is sound, and the attributes that name it when they still
/// decrypt. Never its secret.
public struct DamagedItem: Sendable, Hashable {
    /// What is wrong with the item (never ``ItemDamage/unreadableRow``: such a row is only counted).
    public typealias Damage = ItemDamage

    /// The row that holds it.
    public let rowID: Int64
    /// Its class.
    public let itemClass: ItemClass
    /// What is wrong.
    public let damage: Damage
    /// The attributes that name it (service or server, account, label), when they still decrypt.
    public let name: [AttributeName: AttributeValue]

    /// A damaged item.
    package init(rowID: Int64, itemClass: ItemClass, damage: Damage, name: [AttributeName: AttributeValue] = [:]) {
        self.rowID = rowID
        self.itemClass = itemClass
        self.damage = damage
        self.name = name
    }
}
