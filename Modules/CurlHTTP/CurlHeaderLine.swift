import Data
import Foundation

/// One line curl's header callback hands over: a response's status line, a field, or the blank line
/// that ends a head.
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
        let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            self = .status(line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0)
        } else if line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            self = .end
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            self = name.isEmpty ? .other : .field(name, value)
        } else {
            self = .other
        }
    }
}
