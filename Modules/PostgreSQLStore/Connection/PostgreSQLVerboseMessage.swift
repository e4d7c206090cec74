import Foundation

/// What libpq says of a failed connection when asked to be verbose (`PQERRORS_VERBOSE`), read back: the
/// server's SQLSTATE, and the words as the default verbosity would have said them.
///
/// A server that refuses a connection sends an error whose words are in its own language (`lc_messages`:
/// `Passwort-Authentifizierung für Benutzer »x« fehlgeschlagen` on a German server), and libpq keeps no
/// result of a failed connection to ask for the code. In verbose mode it writes the code after the
/// severity, `FATAL:  28P01: password authentication failed …`, and adds a line with the server's source
/// location (`LOCATION:  auth_failed, auth.c:323`, its label in libpq's language, English unless the program
/// set a locale). When libpq tried more than once (several hosts, or again without TLS), each try's refusal
/// is there in turn, and the last one is how the connection ended.
enum PostgreSQLVerboseMessage {
    /// The last SQLSTATE in `said`, and `said` without the codes and the source location lines.
    static func read(_ said: String) -> (sqlState: String?, message: String) {
        var sqlState: String?
        var lines: [Substring] = []
        for line in said.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.wholeMatch(of: sourceLocation) != nil { continue }
            guard let range = codeRange(in: line) else {
                lines.append(line)
                continue
            }
            sqlState = String(line[range].dropFirst(3).prefix(5))
            lines.append(line[..<range.lowerBound] + ":  " + line[range.upperBound...])
        }
        return (sqlState, lines.joined(separator: "\n"))
    }

    /// libpq's line for the server's source location: a label, two spaces, a function, its file and line.
    /// Made when asked (a `Regex` is not `Sendable`): only a failed connection asks.
    private static var sourceLocation: Regex<Substring> { #/\s*\S+:  \w+, [\w.\-]+\.c:\d+\s*/# }

    /// Where `line` holds `:  XXXXX: ` (five digits or capital letters) right after a severity: one word of
    /// letters that begins the line or follows `: ` (`… failed: FATAL:  28P01: …`), which is how libpq writes
    /// a code. Text a user chose that libpq quotes (a host, a path) is not taken for one.
    private static func codeRange(in line: Substring) -> Range<Substring.Index>? {
        let bytes = Array(line.utf8)
        guard bytes.count >= 10 else { return nil }
        for start in 0...(bytes.count - 10)
        where bytes[start] == UInt8(ascii: ":") && bytes[start + 1] == 0x20 && bytes[start + 2] == 0x20
            && bytes[start + 8] == UInt8(ascii: ":") && bytes[start + 9] == 0x20
            && bytes[(start + 3)..<(start + 8)].allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) })
        {
            let utf8 = line.utf8
            let lower = utf8.index(utf8.startIndex, offsetBy: start)
            guard isSeverity(line[..<lower]) else { continue }
            return lower..<utf8.index(lower, offsetBy: 10)
        }
        return nil
    }

    /// Whether `before` ends in a severity word that begins it or follows `: `.
    private static func isSeverity(_ before: Substring) -> Bool {
        let word = before.range(of: ": ", options: .backwards).map { before[$0.upperBound...] } ?? before
        return !word.isEmpty && word.allSatisfy(\.isLetter)
    }
}
