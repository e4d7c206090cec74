@testable import CurlHTTP
import Testing

/// The lines curl's header callback hands over, read as a status, a field, the end of a head, or
/// something else, with the optional whitespace and the line end around names and values dropped.
@Suite struct CurlHeaderLineTests {
    /// What `text` reads as, written plainly for comparison.
    private func read(_ text: String) -> String {
        var bytes = Array(text.utf8CString)
        let line = bytes.withUnsafeMutableBufferPointer { buffer in
            CurlHeaderLine(buffer.baseAddress!, length: buffer.count - 1)
        }
        switch line {
        case .status(let code): return "status \(code)"
        case .field(let name, let value): return "field [\(name)] [\(value)]"
        case .end: return "end"
        case .other: return "other"
        }
    }

    @Test func statusLinesGiveTheirCode() {
        #expect(read("HTTP/1.1 200 OK\r\n") == "status 200")
        #expect(read("HTTP/2 404\r\n") == "status 404")
        #expect(read("HTTP/1.1 20x Odd\r\n") == "status 0", "a code that is not three digits reads as 0")
    }

    @Test func fieldsLoseTheWhitespaceAndLineEndAroundNameAndValue() {
        #expect(read("Content-Type: application/json\r\n") == "field [Content-Type] [application/json]")
        #expect(read("X-Tabs:\t a b \t\r\n") == "field [X-Tabs] [a b]", "inner whitespace is kept")
        #expect(read("X-Bare: value\n") == "field [X-Bare] [value]", "a bare LF ends a line too")
        #expect(read("X-Empty: \t \r\n") == "field [X-Empty] []")
        #expect(read("X-Late: v \r \r\n") == "field [X-Late] [v]", "blanks and CRs before the line end")
        #expect(read("X-Colons: a:b:c\r\n") == "field [X-Colons] [a:b:c]", "the first colon splits")
    }

    /// A bare CR inside a line is not whitespace: it stays in the name or value, and libmicrohttpd's
    /// responder then refuses that field rather than pass a line break on.
    @Test func aBareCRInsideALineIsKept() {
        #expect(read("X:\rv\r\n") == "field [X] [\rv]")
        #expect(read("\rX: v\r\n") == "field [\rX] [v]")
        #expect(read("Transfer-Encoding\r: chunked\r\n") == "field [Transfer-Encoding\r] [chunked]")
    }

    @Test func blankLinesEndTheHeadAndOddLinesAreOther() {
        #expect(read("\r\n") == "end")
        #expect(read("\n") == "end")
        #expect(read(" \t\r\n") == "end")
        #expect(read(": no name\r\n") == "other")
        #expect(read("  folded continuation\r\n") == "other")
    }
}
