/// The name of one signed-in account among several in one store: a user id, an email, "work". A
/// backend keeps one session per user; a command-line client, a work and a personal account.
///
/// Stored exactly as given (no case folding, no Unicode normalization, no trimming): two names that
/// differ in any byte are two accounts. Refused when it cannot be stored faithfully or shown safely:
/// empty, longer than 256 bytes of UTF-8, or holding a control character.
public struct AccountName: Sendable, Hashable, CustomStringConvertible {
    /// The name as given.
    public let value: String

    /// The account used when none is named: sessions stored before accounts existed are its.
    public static let `default` = AccountName(checked: "default")

    /// The longest name, in bytes of UTF-8.
    public static let maximumBytes = 256

    /// The name `value`, or `nil` when it is empty, too long, or holds a control character (see
    /// ``problem(with:)``).
    public init?(_ value: String) {
        guard Self.problem(with: value) == nil else { return nil }
        self.value = value
    }

    private init(checked value: String) {
        self.value = value
    }

    /// Why `value` cannot name an account, in words, or `nil` when it can.
    public static func problem(with value: String) -> String? {
        if value.isEmpty { return "an account name cannot be empty" }
        if value.utf8.count > maximumBytes { return "an account name is at most \(maximumBytes) bytes of UTF-8" }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "an account name cannot hold control characters"
        }
        return nil
    }

    /// Whether this is the ``default`` account.
    public var isDefault: Bool { self == .default }

    /// The name as given, for messages and listings.
    public var description: String { value }
}
