/// Where a sign-in sends the browser back: a path of this site only. Anything that a browser would take
/// to another origin (`https://evil.example/`, `//evil.example`, `/\evil`), or that holds characters that
/// could split a `Location` field, is refused, so the gateway is never an open redirector.
enum ReturnURL {
    /// `text` when it is a local path (and query), else `nil`; no text means `/`.
    static func validated(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return "/" }
        guard text.utf8.count <= 2048, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"),
            !text.contains("\\"), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        return text
    }
}
