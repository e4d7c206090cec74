/// The authentication scheme of an internet password (`kSecAttrAuthenticationType`).
public struct AuthenticationType: RawRepresentable, Sendable, Hashable {
    /// The name stored in the item, such as `httpBasic`.
    public let rawValue: String

    /// Wraps any name, including ones without a constant here.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `httpbasic`.
    public static let httpBasic = AuthenticationType(rawValue: "httpbasic")

    /// `httpdigest`.
    public static let httpDigest = AuthenticationType(rawValue: "httpdigest")

    /// `htmlform`.
    public static let htmlForm = AuthenticationType(rawValue: "htmlform")

    /// `ntlm`.
    public static let ntlm = AuthenticationType(rawValue: "ntlm")

    /// `default`.
    public static let `default` = AuthenticationType(rawValue: "default")
}
