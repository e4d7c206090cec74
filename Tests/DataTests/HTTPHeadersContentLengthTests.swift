import Data
import Testing

/// The length a response's fields declare: one `Content-Length` holding a decimal number, or none.
@Suite struct HTTPHeadersContentLengthTests {
    @Test(arguments: [
        ("230", 230), ("0", 0), (" 12 ", 12), ("\t7", 7), ("999999999999999999", 999_999_999_999_999_999),
    ])
    func oneNumberIsTheLength(value: String, length: Int) {
        #expect(HTTPHeaders([("Content-Type", "text/plain"), ("content-length", value)]).contentLength == length)
    }

    @Test(arguments: ["", "abc", "-1", "+5", "5, 5", "1.5", "0x10", "1234567890123456789", "٣"])
    func anythingElseIsNone(value: String) {
        #expect(HTTPHeaders([("Content-Length", value)]).contentLength == nil)
    }

    @Test func noFieldOrTwoAreNone() {
        #expect(HTTPHeaders([("Content-Type", "text/plain")]).contentLength == nil)
        #expect(HTTPHeaders([("Content-Length", "5"), ("Content-Length", "5")]).contentLength == nil)
        #expect(HTTPHeaders([("Content-Length", "5"), ("CONTENT-LENGTH", "6")]).contentLength == nil)
    }
}
