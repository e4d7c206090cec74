/// The protocol of an internet password (`kSecAttrProtocol`).
public struct InternetProtocol: RawRepresentable, Sendable, Hashable {
    /// The name stored in the item, such as `https`.
    public let rawValue: String

    /// Wraps any name, including ones without a constant here.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `https`.
    public static let https = InternetProtocol(rawValue: "https")

    /// `http`.
    public static let http = InternetProtocol(rawValue: "http")

    /// `ftp`.
    public static let ftp = InternetProtocol(rawValue: "ftp")

    /// `ssh`.
    public static let ssh = InternetProtocol(rawValue: "ssh")

    /// `smtp`.
    public static let smtp = InternetProtocol(rawValue: "smtp")

    /// `imap`.
    public static let imap = InternetProtocol(rawValue: "imap")

    /// `ldap`.
    public static let ldap = InternetProtocol(rawValue: "ldap")
}
