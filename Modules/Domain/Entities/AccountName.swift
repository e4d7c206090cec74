/// The name of one signed-in account among several in one store: a user id, an email, "work". A
/// backend keeps one session per user; a command-line client, a work and a personal account.
///
/// Stored exactly as given (no case folding, no Unicode normalization, no trimming): two names that
/// differ in any byte are two accounts, so equality and hashing compare the UTF-8 bytes, not Swift's
/// canonical equivalence (under which "Å" and "A" with a combining ring are one string). Refused when
/// it cannot be stored faithfully or shown safely: empty, longer than 256 bytes of UTF-8, or holding a
/// control, format or line/paragraph separator character (invisible ones could make two accounts print
/// alike).
public struct AccountName: Sendable, Hashable, CustomStringConvertible {
    /// The name as given.
    public let value: String

    /// The account used when none is named: sessions stored before accounts existed are its.
    public static let `default` = AccountName(checked: "default")

    /// The longest name, in bytes of UTF-8.
    public static let maximumBytes = 256

    /// The name `value`, or `nil` when it is empty, too long, or holds a control or invisible character (see
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
        // Printable ASCII holds no control, format or separator character: most names end here, without
        // the Unicode properties below (the gateway names a session's account on every call).
        if value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return nil }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "an account name cannot hold control characters"
        }
        let invisible: Set<Unicode.GeneralCategory> = [.format, .lineSeparator, .paragraphSeparator]
        if value.unicodeScalars.contains(where: { invisible.contains($0.properties.generalCategory) }) {
            return "an account name cannot hold invisible format or separator characters (such as U+200B or U+202E)"
        }
        return nil
    }

    /// Equal when the names are the same bytes of UTF-8 (as the store compares them).
    public static func == (lhs: AccountName, rhs: AccountName) -> Bool {
        lhs.value.utf8.elementsEqual(rhs.value.utf8)
    }

    /// Hashes the UTF-8 bytes, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        for byte in value.utf8 { hasher.combine(byte) }
        hasher.combine(value.utf8.count)
    }

    /// Whether this is the ``default`` account.
    public var isDefault: Bool { self == .default }

    /// The name as given, for messages and listings.
    public var description: String { value }
}
