/// What a find returns of each item: its secret data, its attributes, or both.
public struct ItemParts: OptionSet, Sendable, Hashable {
    /// The raw option bits.
    public let rawValue: UInt8
    /// Wraps raw option bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The decrypted secret data (`kSecReturnData`).
    public static let data = ItemParts(rawValue: 1)
    /// The decrypted attributes (`kSecReturnAttributes`).
    public static let attributes = ItemParts(rawValue: 2)
    /// Both.
    public static let all: ItemParts = [.data, .attributes]
}
