/// What libpq says of a failed connection when asked to be verbose (`PQERRORS_VERBOSE`), read back: the
/// server's SQLSTATE, and the words as the default verbosity would have said them.
///
/// A server that refuses a connection sends an error whose words are in its own language (`lc_messages`:
/// `Passwort-Authentifizierung für Benutzer »x« fehlgeschlagen` on a German server), and libpq keeps no
/// result of a failed connection to ask for the code. In verbose mode it writes the code after the
/// severity, `FATAL:  28P01: password authentication failed …`, and adds a `LOCATION:` line (the server's
/// source file); libpq's own labels stay English, as this process never sets a locale.
enum PostgreSQLVerboseMessage {
    /// The first SQLSTATE in `said`, and `said` without the codes and `LOCATION:` lines.
    static func read(_ said: String) -> (sqlState: String?, message: String) {
        var sqlState: String?
        var lines: [Substring] = []
        for line in said.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("LOCATION:") { continue }
            guard let range = codeRange(in: line) else {
                lines.append(line)
                continue
            }
            let code = line[range].dropFirst(3).prefix(5)
            if sqlState == nil { sqlState = String(code) }
            lines.append(line[..<range.lowerBound] + ":  " + line[range.upperBound...])
        }
        return (sqlState, lines.joined(separator: "\n"))
    }

    /// Where `line` holds `:  XXXXX: ` (a severity's colon and two spaces, five digits or capital letters, a
    /// colon and a space), which is how libpq writes a code after the severity.
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
            return lower..<utf8.index(lower, offsetBy: 10)
        }
        return nil
    }
}
