/// Finds `==`, `!=`, `elementsEqual` or `starts(with:)` applied to a keyed or secret value, by the
/// operands' names, in a line of code: what ``ConstantTimeComparisonTests`` looks for.
///
/// An operand's names are those of the expression beside the operator, a call's or subscript's
/// arguments left out: `record.checksum` is `record` and `checksum`, `try Self.keyCheck(checkKey)` is
/// `Self` and `keyCheck`, `request.state.revealedString()` holds `state`. A comparison is flagged when
/// either operand holds one of the layer's keyed names, neither operand is `nil` or a literal
/// (`check == "ok"` and `nonce != nil` compare no keyed value), and the operand does not end in a length
/// (`mac.count`: public). Names are per layer: the
/// store's keyed values are not the gateway's, and a PostgreSQL row's `state` (its version) is public.
///
/// It reads names, not types, so it is a tripwire, not a proof: it catches a plain `==` put back on the
/// values known today, under the names they have today.
struct KeyedComparisonScan {
    /// The names of keyed or secret values in a layer, compared only through the layer's constant-time
    /// comparison.
    let names: Set<String>

    /// The store (StoreCore and its adapters): keyed BLAKE2b values held as bytes. Blind indexes, row
    /// hashes and rows digests are not here: they are types whose own `==` is constant-time, which
    /// ``ConstantTimeComparisonTests`` checks in their source instead.
    static let store = KeyedComparisonScan(names: ["keyedHash", "keyCheck", "headerMAC", "mac", "check"])

    /// Data and the gateway: sign-in and session values derived from secrets or guarding them.
    static let app = KeyedComparisonScan(names: [
        "keyedHash", "mac", "hmac", "tag", "seal", "sealed", "secret", "clientSecret", "sessionID", "sid", "state",
        "nonce", "verifier", "codeVerifier", "codeChallenge", "challenge", "tokenID", "jti", "password",
    ])

    /// The operators and calls that compare two values by their contents, stopping at the first
    /// difference (for `Array`, `String` and `Data`).
    private static let comparisons = ["==", "!=", ".elementsEqual(", ".starts(with:"]

    /// The comparisons on `code` (a line without its comment) that apply to a keyed name: for each, the
    /// operator and the keyed name.
    func findings(in code: Substring) -> [String] {
        let characters = Array(code)
        var found: [String] = []
        var index = 0
        while index < characters.count {
            guard let comparison = Self.comparison(at: index, in: characters) else {
                index += 1
                continue
            }
            let left = Self.leftOperand(characters[..<index])
            let right = Self.rightOperand(characters[(index + comparison.count)...])
            index += comparison.count
            guard !Self.isNilOrLiteral(left), !Self.isNilOrLiteral(right) else { continue }
            for operand in [left, right] where !Self.isPublicProjection(operand) {
                for name in operand.names where names.contains(name) { found.append("\(comparison) on `\(name)`") }
            }
        }
        return found
    }

    /// An operand as far as the scan reads it: the names of its chain (`record`, `checksum` in
    /// `record.checksum`; a call's or subscript's arguments are skipped), and whether it is a string or
    /// number literal.
    typealias Operand = (names: [String], isLiteral: Bool)

    /// Whether an operand ends in a length, which is public whatever it measures (`mac.count`).
    private static func isPublicProjection(_ operand: Operand) -> Bool {
        ["count", "isEmpty"].contains(operand.names.last ?? "")
    }

    private static func isNilOrLiteral(_ operand: Operand) -> Bool {
        operand.isLiteral || (operand.names.count == 1 && ["nil", "true", "false"].contains(operand.names[0]))
    }

    /// The comparison that starts at `index`, if one does: `==` and `!=` only as a whole operator (not
    /// `===`, `!==` or part of `<==`).
    private static func comparison(at index: Int, in characters: [Character]) -> String? {
        for comparison in comparisons {
            let text = Array(comparison)
            guard index + text.count <= characters.count, Array(characters[index..<(index + text.count)]) == text
            else { continue }
            if comparison.hasPrefix(".") { return comparison }
            let before = index > 0 ? characters[index - 1] : " "
            let after = index + text.count < characters.count ? characters[index + text.count] : " "
            if "=!<>".contains(before) || after == "=" { continue }
            return comparison
        }
        return nil
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "$"
    }

    /// Skips back from `end` over the call's or subscript's brackets that close just before it.
    private static func skipBack(_ text: ArraySlice<Character>, from end: Int) -> Int? {
        let close = text[end - 1]
        let open: Character = close == ")" ? "(" : "["
        var depth = 0
        var position = end - 1
        while position >= text.startIndex {
            if text[position] == close { depth += 1 }
            if text[position] == open {
                depth -= 1
                if depth == 0 { return position }
            }
            position -= 1
        }
        return nil
    }

    /// Skips forward from `start` over the call's or subscript's brackets that open there.
    private static func skipForward(_ text: ArraySlice<Character>, from start: Int) -> Int? {
        let open = text[start]
        let close: Character = open == "(" ? ")" : "]"
        var depth = 0
        var position = start
        while position < text.endIndex {
            if text[position] == open { depth += 1 }
            if text[position] == close {
                depth -= 1
                if depth == 0 { return position + 1 }
            }
            position += 1
        }
        return nil
    }

    /// The operand that ends just before a comparison, read backwards: names joined by `.`, each maybe
    /// followed by calls, subscripts or `?`/`!`.
    private static func leftOperand(_ text: ArraySlice<Character>) -> Operand {
        var end = text.endIndex
        while end > text.startIndex, text[end - 1] == " " { end -= 1 }
        if end > text.startIndex, text[end - 1] == "\"" { return ([], true) }
        var names: [String] = []
        var group: Range<Int>?
        while end > text.startIndex {
            group = nil
            while end > text.startIndex, ")]?!".contains(text[end - 1]) {
                if text[end - 1] == "?" || text[end - 1] == "!" {
                    end -= 1
                } else if let open = skipBack(text, from: end) {
                    group = (open + 1)..<(end - 1)
                    end = open
                } else {
                    return (names, false)
                }
            }
            var start = end
            while start > text.startIndex, isNameCharacter(text[start - 1]) { start -= 1 }
            guard start < end else { break }
            names.insert(String(text[start..<end]), at: 0)
            guard start > text.startIndex, text[start - 1] == "." else { break }
            end = start - 1
        }
        if names.count == 1, let group { return converted(names, text[group]) }
        return (names, names.first?.first?.isNumber ?? false)
    }

    /// A conversion (`Array(verifier.utf8)`, `SecretBytes(utf8: state)`: a type's name called with one
    /// value) read as the value it converts, the last expression of its arguments.
    private static func converted(_ names: [String], _ arguments: ArraySlice<Character>) -> Operand {
        guard let type = names.first, type.first?.isUppercase == true else { return (names, false) }
        return (names + leftOperand(arguments).names, false)
    }

    /// The operand that starts just after a comparison (after `try` or `await`), read forwards the same way.
    private static func rightOperand(_ text: ArraySlice<Character>) -> Operand {
        var position = text.startIndex
        func skipSpaces() { while position < text.endIndex, text[position] == " " { position += 1 } }
        skipSpaces()
        guard position < text.endIndex else { return ([], false) }
        if text[position] == "\"" || text[position].isNumber || text[position] == "-" { return ([], true) }
        var names: [String] = []
        while position < text.endIndex {
            let start = position
            while position < text.endIndex, isNameCharacter(text[position]) { position += 1 }
            guard start < position else { break }
            let name = String(text[start..<position])
            if (name == "try" || name == "await") && names.isEmpty {
                if position < text.endIndex, text[position] == "?" || text[position] == "!" { position += 1 }
                skipSpaces()
                continue
            }
            names.append(name)
            var group: Range<Int>?
            while position < text.endIndex, "([?!".contains(text[position]) {
                if text[position] == "?" || text[position] == "!" {
                    position += 1
                } else if let after = skipForward(text, from: position) {
                    group = (position + 1)..<(after - 1)
                    position = after
                } else {
                    return (names, false)
                }
            }
            if names.count == 1, let group { names = converted(names, text[group]).names }
            guard position < text.endIndex, text[position] == "." else { break }
            position += 1
        }
        return (names, false)
    }
}
