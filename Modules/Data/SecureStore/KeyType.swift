/// The algorithm of a key (`kSecAttrKeyType`).
public struct KeyType: RawRepresentable, Sendable, Hashable {
    /// The name stored in the item, such as `rsa`.
    public let rawValue: String

    /// Wraps any name, including ones without a constant here.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `rsa`.
    public static let rsa = KeyType(rawValue: "rsa")

    /// `ec`.
    public static let ec = KeyType(rawValue: "ec")

    /// `ed25519`.
    public static let ed25519 = KeyType(rawValue: "ed25519")

    /// `x25519`.
    public static let x25519 = KeyType(rawValue: "x25519")

    /// `aes`.
    public static let aes = KeyType(rawValue: "aes")
}
