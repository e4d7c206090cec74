/// Lays out help: paragraphs wrapped to 100 columns, and titled lists with an aligned second column.
enum TextLayout {
    /// The widest a help line gets.
    static let width = 100

    /// `title:` followed by one indented line per entry, its description aligned and wrapped.
    static func section(_ title: String, _ entries: [(String, String)]) -> String {
        let column = min(max(entries.map(\.0.count).max() ?? 0, 8), 26) + 4
        var lines = ["\(title):"]
        for (left, right) in entries {
            let wrapped = wrap(right, width: width - column)
            let pad = String(repeating: " ", count: column)
            if left.count + 4 > column {
                lines.append("  \(left)")
                lines += wrapped.map { pad + $0 }
            } else {
                lines.append("  " + left + String(repeating: " ", count: column - 2 - left.count) + wrapped[0])
                lines += wrapped.dropFirst().map { pad + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `text` wrapped at spaces to ``width`` columns.
    static func paragraph(_ text: String) -> String {
        wrap(text, width: width).joined(separator: "\n")
    }

    /// Splits `text` at spaces into lines of at most `width` characters (a longer word stays whole).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
    }
}
