#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connection's bytes as they arrive, read in whatever pieces the socket gives.
struct SocketBytes {
    let socket: Int32
    /// What was read and not yet taken.
    var buffered: [UInt8] = []
    /// Whether a head ran past its limit.
    var overflowed = false

    /// The next head, its blank line included, or `nil` at the connection's end (or past `limit` bytes).
    mutating func head(limit: Int) -> [UInt8]? {
        while true {
            if let end = firstIndex(of: [13, 10, 13, 10], in: buffered) {
                let head = Array(buffered[..<(end + 4)])
                buffered.removeFirst(end + 4)
                return head
            }
            if buffered.count > limit {
                overflowed = true
                return nil
            }
            guard fill() else { return nil }
        }
    }

    /// The next `count` bytes, or `nil` when the connection ends first.
    mutating func take(_ count: Int) -> [UInt8]? {
        while buffered.count < count { guard fill() else { return nil } }
        let taken = Array(buffered[..<count])
        buffered.removeFirst(count)
        return taken
    }

    /// A chunked body (RFC 9112 §7.1) read to its end, trailers included: its length, or `nil` when it does not
    /// parse.
    mutating func chunkedBody() -> Int? {
        var total = 0
        while true {
            // Hex digits only (`Int(_:radix:)` would take a sign too), before any chunk extension.
            guard let line = self.line(), let digits = line.split(separator: ";").first, !digits.isEmpty,
                digits.allSatisfy(\.isHexDigit), let size = Int(digits, radix: 16)
            else { return nil }
            if size == 0 {
                // Trailer fields, up to the blank line.
                while true {
                    guard let trailer = self.line() else { return nil }
                    if trailer.isEmpty { return total }
                }
            }
            guard take(size) != nil, let end = self.line(), end.isEmpty else { return nil }
            total += size
        }
    }

    /// The next line without its CRLF, or `nil` at the connection's end (or past 4 KiB).
    private mutating func line() -> String? {
        while true {
            if let end = firstIndex(of: [13, 10], in: buffered) {
                let line = String(decoding: buffered[..<end], as: UTF8.self)
                buffered.removeFirst(end + 2)
                return line
            }
            guard buffered.count < 4096, fill() else { return nil }
        }
    }

    /// Reads what the socket has: `false` at its end, an error or the read timeout.
    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffered += chunk[..<count]
        return true
    }
}
