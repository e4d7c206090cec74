/// Text a server sent (an error description, a token type) made safe to show: control characters
/// (which could drive a terminal) removed and the length bounded.
enum ServerText {
    /// `text` without control characters, at most `limit` characters.
    static func printable(_ text: String, limit: Int = 120) -> String {
        let cleaned = String(text.unicodeScalars.filter { !$0.properties.generalCategory.isControl }.map(Character.init))
        return cleaned.count > limit ? String(cleaned.prefix(limit)) + "…" : cleaned
    }
}

extension Unicode.GeneralCategory {
    /// Whether this is a control or format character (C0, C1, DEL, bidirectional overrides, …).
    fileprivate var isControl: Bool { self == .control || self == .format }
}
