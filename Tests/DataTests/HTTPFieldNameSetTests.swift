import Data
import Testing

/// The set of field names a proxy drops: found in any case of ASCII letters, and only then.
@Suite struct HTTPFieldNameSetTests {
    private let set = HTTPFieldNameSet(["cookie", "te", "Transfer-Encoding", "x-csrf"])

    @Test(arguments: ["cookie", "COOKIE", "Cookie", "te", "TE", "transfer-encoding", "TRANSFER-ENCODING", "X-Csrf"])
    func aNameOfTheSetIsFoundInAnyCase(_ name: String) {
        #expect(set.contains(name))
    }

    @Test(arguments: [
        "", "c", "cookies", "cooki", "coOkiE ", "t", "tf", "x_csrf", "x-csrg", "set-cookie", "transfer-encodinG2",
        // `\r` | 0x20 is `-`, but only letters fold; `é` is two bytes, compared where `ie` is; DEL folds onto
        // nothing.
        "x\u{0D}csrf", "cook\u{00E9}", "COOKI\u{7F}",
    ])
    func aNameOutsideTheSetIsNot(_ name: String) {
        #expect(!set.contains(name))
    }

    @Test func anEmptySetHoldsNothing() {
        #expect(!HTTPFieldNameSet([]).contains(""))
        #expect(!HTTPFieldNameSet([]).contains("cookie"))
    }

    @Test func aFieldNameThatIsNotAsciiNeverMatches() {
        // "Ｃookie" (a fullwidth C) has more bytes than "cookie"; "ćookie" too: neither may fold onto it.
        #expect(!set.contains("\u{FF23}ookie"))
        #expect(!set.contains("\u{0107}ookie"))
    }
}
