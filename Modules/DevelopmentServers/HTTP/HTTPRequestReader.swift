import Data
import Foundation

/// Reads one request from a connected socket within the loopback server's limits: a head of at most
/// `headLimit` bytes, a body of at most `bodyLimit` bytes declared by `Content-Length`, and no
/// transfer codings (a chunked body gets 411, asking for a length instead). Oversized heads get 414 or
/// 431, oversized bodies 413, a stall 408, anything malformed 400.
struct HTTPRequestReader {
    /// How a read ended.
    enum Outcome {
        /// A complete request.
        case request(HTTPRequest)
        /// A request refused with a status, before the handler.
        case rejected(HTTPWireRejection)
        /// The peer went away, or sent nothing before the timeout: nothing to answer.
        case closed
    }

    /// The largest request line plus header fields, in bytes.
    let headLimit: Int
    /// The largest body, in bytes.
    let bodyLimit: Int
    /// How long the whole request may take to arrive, in seconds.
    let timeout: Double

    /// Reads and parses a request from `fd`.
    func read(from fd: Int32) -> Outcome {
        // One deadline for the whole request, not one per read: a client trickling a byte at a time
        // must not hold its thread for longer than the timeout.
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        func receive(into chunk: inout [UInt8]) -> Int {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return -1 }
            let parts = remaining.components
            POSIXSocket.setReceiveTimeout(fd, seconds: Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
            return POSIXSocket.receive(fd, into: &chunk)
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var checkedRequestLine = false
        var headEnd: Int?
        while headEnd == nil {
            let count = receive(into: &chunk)
            if count == 0 { return .closed }
            if count < 0 { return buffer.isEmpty ? .closed : .rejected(HTTPWireRejection(status: 408)) }
            let searchFrom = max(0, buffer.count - 3)
            let previous = buffer.last
            buffer.append(contentsOf: chunk[0..<count])
            // A bare LF is refused at once: waiting for a CRLF that never comes would only end in 408.
            if hasBareLineFeed(chunk[0..<count], after: previous) { return .rejected(HTTPWireRejection(status: 400)) }
            // A garbage first line is refused as soon as it is complete, without waiting for more.
            if !checkedRequestLine, let lineEnd = find([13, 10], in: buffer, from: 0) {
                checkedRequestLine = true
                if case .failure(let rejection) = HTTPRequestHead.parseRequestLine(buffer[0..<lineEnd]) {
                    return .rejected(rejection)
                }
            }
            headEnd = find([13, 10, 13, 10], in: buffer, from: searchFrom)
            if headEnd == nil && buffer.count > headLimit { break }
        }
        guard let headEnd, headEnd + 4 <= headLimit else {
            // An overlong first line is an overlong target (414); otherwise the fields are too big (431).
            let lineFits = find([13, 10], in: buffer, from: 0).map { $0 + 2 <= headLimit } ?? false
            return .rejected(HTTPWireRejection(status: lineFits ? 431 : 414))
        }
        let head: HTTPRequestHead
        switch HTTPRequestHead.parse(buffer[0..<headEnd]) {
        case .success(let parsed): head = parsed
        case .failure(let rejection): return .rejected(rejection)
        }
        if head.headers["Transfer-Encoding"] != nil { return .rejected(HTTPWireRejection(status: 411)) }
        let length: Int
        switch contentLength(head.headers) {
        case .success(let value): length = value
        case .failure(let rejection): return .rejected(rejection)
        }
        guard length <= bodyLimit else { return .rejected(HTTPWireRejection(status: 413)) }
        var body = Array(buffer[(headEnd + 4)...].prefix(length))
        if body.count < length, head.headers["Expect"]?.lowercased() == "100-continue" {
            POSIXSocket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        while body.count < length {
            let count = receive(into: &chunk)
            if count == 0 { return .closed }
            if count < 0 { return .rejected(HTTPWireRejection(status: 408)) }
            body.append(contentsOf: chunk[0..<min(count, length - body.count)])
        }
        return .request(HTTPRequest(method: head.method, path: head.target, headers: head.headers, body: Data(body)))
    }

    /// The declared body length: 0 when absent; every `Content-Length` field must agree and be digits.
    private func contentLength(_ headers: HTTPHeaders) -> Result<Int, HTTPWireRejection> {
        let values = headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        guard let first = values.first else { return .success(0) }
        guard values.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
            first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(first)
        else { return .failure(HTTPWireRejection(status: 400)) }
        return .success(value)
    }

    /// Whether `chunk` holds an LF not preceded by CR (`previous` is the byte before the chunk).
    private func hasBareLineFeed(_ chunk: ArraySlice<UInt8>, after previous: UInt8?) -> Bool {
        var before = previous
        for byte in chunk {
            if byte == 10 && before != 13 { return true }
            before = byte
        }
        return false
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
