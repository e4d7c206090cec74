import Domain
import Testing

/// `SecretBytes`: never printed, compared in constant time, revealed as text only when valid UTF-8.
@Suite struct SecretBytesTests {
    private let text = "hunter2-SECRET-b7c1"

    @Test func noTextualFormShowsTheBytes() {
        let secret = SecretBytes(utf8: text)
        var dumped = ""
        dump(secret, to: &dumped)
        var dumpedItem = ""
        dump([secret], to: &dumpedItem)
        let forms = [
            secret.description, secret.debugDescription, String(describing: secret), String(reflecting: secret),
            "\(secret)", "\([secret])", "\(Optional(secret) as Any)", dumped, dumpedItem,
        ]
        for form in forms {
            #expect(!form.contains(text), "\(form)")
            #expect(!form.contains("hunter"), "\(form)")
        }
        #expect(secret.description.contains("redacted"))
        #expect(secret.description.contains("\(text.utf8.count)"))
        #expect(Mirror(reflecting: secret).children.isEmpty)
    }

    @Test func equalityComparesTheBytes() {
        let secret = SecretBytes(utf8: text)
        #expect(secret == SecretBytes(utf8: text))
        #expect(secret.constantTimeEquals(SecretBytes(Array(text.utf8))))
        #expect(secret != SecretBytes(utf8: "hunter2-SECRET-b7c2"))
        #expect(secret != SecretBytes(utf8: "Hunter2-SECRET-b7c1"))
        #expect(secret != SecretBytes(utf8: text + "x"))
        #expect(secret != SecretBytes(utf8: String(text.dropLast())))
        #expect(SecretBytes([]) == SecretBytes([]))
        #expect(SecretBytes([]) != SecretBytes([0]))
        #expect(SecretBytes([0, 0]) != SecretBytes([0]))
    }

    @Test func revealedStringIsStrictUTF8() {
        #expect(SecretBytes(utf8: text).revealedString() == text)
        #expect(SecretBytes(utf8: "\u{1F511} caf\u{E9}").revealedString() == "\u{1F511} caf\u{E9}")
        #expect(SecretBytes([]).revealedString() == "")
        // A stray byte, a lone continuation, an overlong form, a surrogate, a truncated sequence, 5 bytes.
        let invalids: [[UInt8]] = [
            [0xFF], [0x61, 0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x94], [0xF8, 0x88, 0x80, 0x80, 0x80],
        ]
        for invalid in invalids {
            #expect(SecretBytes(invalid).revealedString() == nil, "\(invalid)")
        }
    }

    @Test func bytesAreCopiedInAndOut() throws {
        var source: [UInt8] = [1, 2, 3]
        let secret = SecretBytes(source)
        source[0] = 9
        #expect(secret.withUnsafeBytes { Array($0) } == [1, 2, 3])
        #expect(secret.count == 3)
        #expect(!secret.isEmpty)
        #expect(SecretBytes([]).isEmpty)

        let filled = SecretBytes(count: 4) { buffer in buffer.copyBytes(from: [4, 3, 2, 1]) }
        #expect(filled.withUnsafeBytes { Array($0) } == [4, 3, 2, 1])

        struct Refused: Error {}
        #expect(throws: Refused.self) { try SecretBytes(count: 8) { _ in throw Refused() } }
    }

    @Test func wipeZeroesTheBuffer() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: Array(repeating: UInt8(0xA5), count: 16))
        SecretBytes.wipe(buffer)
        #expect(buffer.allSatisfy { $0 == 0 })
        SecretBytes.wipe(UnsafeMutableRawBufferPointer(start: nil, count: 0))
    }
}
