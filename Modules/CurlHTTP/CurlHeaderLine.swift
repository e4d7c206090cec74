import Data

/// One line curl's header callback hands over: a response's status line, a field, or the blank line
/// that ends a head. Read on bytes: every upstream answer's fields pass here, and Foundation's trimming
/// cost a gateway call more than the rest of its transfer's parsing.
enum CurlHeaderLine {
    /// `HTTP/1.1 200 OK`: a response starts (its code, 0 if unreadable).
    case status(Int)
    /// `Name: value`, both trimmed.
    case field(String, String)
    /// The blank line after the fields.
    case end
    /// Anything else (a folded line, a name left empty).
    case other

    /// The line in `bytes` (`length` bytes, its CR LF included).
    init(_ bytes: UnsafeMutablePointer<CChar>, length: Int) {
        let line = UnsafeRawBufferPointer(start: bytes, count: length)
        let content = Self.withoutLineEnd(line)
        if line.starts(with: "HTTP/".utf8) {
            var code = 0
            var digits = 0
            // The code: the three digits after the first space.
            if let space = line.firstIndex(of: 0x20) {
                for byte in line[(space + 1)...].prefix(3) where (0x30...0x39).contains(byte) {
                    code = code * 10 + Int(byte - 0x30)
                    digits += 1
                }
            }
            self = .status(digits == 3 ? code : 0)
        } else if content.trimmingOptionalWhitespace().isEmpty {
            self = .end
        } else if let colon = content.firstIndex(of: UInt8(ascii: ":")) {
            let name = content[..<colon].trimmingOptionalWhitespace()
            let value = content[(colon + 1)...].trimmingOptionalWhitespace()
            self =
                name.isEmpty
                ? .other : .field(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        } else {
            self = .other
        }
    }

    /// `line` without what ends it: the CR LF, and any spaces, tabs or line ends before them.
    private static func withoutLineEnd(_ line: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer> {
        var bytes = line[...]
        while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0D || last == 0x0A {
            bytes = bytes.dropLast()
        }
        return bytes
    }
}
