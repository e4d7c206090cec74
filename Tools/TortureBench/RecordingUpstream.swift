import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The upstream behind the gateway in the hostile fuzz: an HTTP/1.1 server on 127.0.0.1 that keeps every
/// request's head exactly as it arrived, reads its body (by `Content-Length` or chunked, as RFC 9112 §6 frames
/// it, and no other way), and answers `200 {"ok":true}` with `X-Upstream: 1`, keeping the connection. It reads
/// strictly: a head it cannot frame is kept with the reason, and its connection closed; that is a finding
/// about what the gateway sent, not a fault of the fuzz.
final class RecordingUpstream: Sendable {
    /// One request as it arrived.
    struct Received: Sendable {
        /// The head, its last blank line included.
        let head: [UInt8]
        /// The body's length, once read.
        let bodyBytes: Int
        /// Why the request could not be read, when it could not.
        let fault: String?
    }

    /// The port it listens on.
    let port: UInt16
    private let listener: Int32
    private let received = Mutex<[Received]>([])

    /// Starts listening on a free port of 127.0.0.1, a thread accepting and one a connection.
    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ChildProcess.SpawnError(description: "socket: \(errnoText())") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 128) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw ChildProcess.SpawnError(description: "the recording upstream cannot listen: \(errnoText())")
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    /// Every request received so far.
    var requests: [Received] { received.withLock { $0 } }

    /// Stops accepting (connections open now end when their peer closes them).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            Thread { [self] in serve(connection) }.start()
        }
    }

    /// Reads requests from `connection` and answers each, until the peer closes it or a request cannot be read.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var reader = SocketBytes(socket: connection)
        while true {
            guard let head = reader.head(limit: 64 << 10) else {
                if !reader.buffered.isEmpty || reader.overflowed {
                    record(
                        Received(head: reader.buffered, bodyBytes: 0, fault: "a head that does not end within 64 KiB"))
                }
                return
            }
            let framing = UpstreamHeadCheck.framing(of: head)
            var bodyBytes = 0
            switch framing {
            case .none: break
            case .length(let count):
                guard reader.take(count) != nil else {
                    return record(Received(head: head, bodyBytes: 0, fault: "a body shorter than its Content-Length"))
                }
                bodyBytes = count
            case .chunked:
                guard let count = reader.chunkedBody() else {
                    return record(Received(head: head, bodyBytes: 0, fault: "a chunked body that does not parse"))
                }
                bodyBytes = count
            case .invalid(let reason):
                return record(Received(head: head, bodyBytes: 0, fault: reason))
            }
            record(Received(head: head, bodyBytes: bodyBytes, fault: nil))
            let isHead = head.starts(with: Array("HEAD ".utf8))
            let answer =
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Upstream: 1\r\nContent-Length: 11\r\n\r\n"
                + (isHead ? "" : #"{"ok":true}"#)
            let bytes = Array(answer.utf8)
            guard
                bytes.withUnsafeBytes({ send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                    == bytes.count
            else { return }
        }
    }

    private func record(_ request: Received) {
        received.withLock { $0.append(request) }
    }
}

/// A connection's bytes as they arrive, read in whatever pieces the socket gives.
private struct SocketBytes {
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
            guard let line = self.line(), let size = Int(line.split(separator: ";").first ?? "", radix: 16), size >= 0
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
