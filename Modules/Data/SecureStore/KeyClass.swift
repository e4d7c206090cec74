/// Whether a key is public, private or symmetric (`kSecAttrKeyClass`).
public struct KeyClass: RawRepresentable, Sendable, Hashable {
    /// The name stored in the item, such as `public`.
    public let rawValue: String

    /// Wraps any name, including ones without a constant here.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `public`.
    public static let `public` = KeyClass(rawValue: "public")

    /// `private`.
    public static let `private` = KeyClass(rawValue: "private")

    /// `symmetric`.
    public static let symmetric = KeyClass(rawValue: "symmetric")
}
