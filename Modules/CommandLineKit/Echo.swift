/// What an error may repeat of the command line: a mistyped command line can hold a secret where an
/// option or a command was expected, so only text shaped like a name is echoed.
enum Echo {
    /// A command or verb name as typed, quoted, when it looks like one; else `(not shown)`.
    static func word(_ text: String) -> String {
        let looksLikeWord =
            !text.isEmpty && text.count <= 40
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        return looksLikeWord ? "'\(text)'" : "(not shown)"
    }

    /// An unknown option's name when it looks like one, else `(not shown)`. A single-dash word longer than
    /// two characters shows only its first letter: it may be a short option with a secret written on
    /// (`-xSecret`).
    static func option(_ name: String) -> String {
        if !name.hasPrefix("--") && name.count > 2 {
            let head = option(String(name.prefix(2)))
            return head == "(not shown)" ? head : head + " (followed by text not shown)"
        }
        let looksLikeOption =
            name.count <= 32
            && name.dropFirst(name.hasPrefix("--") ? 2 : 1).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        return looksLikeOption ? name : "(not shown)"
    }
}
