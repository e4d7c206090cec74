import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A raw TCP client on 127.0.0.1: sends bytes exactly as given (so a fuzzer can send anything) and
/// reads the answer until the server closes or a deadline passes.
enum LoopbackClient {
    /// What came back.
    struct Reply {
        /// Every byte received.
        var bytes: [UInt8] = []
        /// Whether the connection could not be made.
        var refused = false
        /// Whether the deadline passed before the server closed the connection.
        var timedOut = false

        /// The status code of an HTTP response, when it starts with a valid status line.
        var status: Int? {
            guard bytes.count >= 12, bytes.starts(with: Array("HTTP/1.".utf8)) else { return nil }
            return Int(String(decoding: bytes[9..<12], as: UTF8.self))
        }

        /// The body after the head.
        var body: [UInt8] {
            guard let end = firstIndex(of: [13, 10, 13, 10], in: bytes) else { return [] }
            return Array(bytes[(end + 4)...])
        }
    }

    /// Connects to 127.0.0.1:`port`, sends `request` (in pieces when `chunks` > 1), half-closes when
    /// `finish`, and reads until the server closes or `timeout` seconds pass.
    static func exchange(
        port: UInt16, _ request: [UInt8], chunks: Int = 1, finish: Bool = true, timeout: Double = 10
    ) -> Reply {
        var reply = Reply()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            reply.refused = true
            return reply
        }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            reply.refused = true
            return reply
        }
        // Seconds and microseconds: a timeout under a second would otherwise be none at all.
        var sendTimeout = timeval(
            tv_sec: Int(timeout), tv_usec: .init((timeout - timeout.rounded(.towardZero)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        let pieces = max(1, min(chunks, request.count))
        let size = max(1, (request.count + pieces - 1) / pieces)
        var offset = 0
        while offset < request.count {
            let end = min(request.count, offset + size)
            let sent = request.withUnsafeBytes { send(fd, $0.baseAddress! + offset, end - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            offset += sent
        }
        if finish { shutdown(fd, Int32(SHUT_WR)) }
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 {
                reply.timedOut = true
                break
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(left * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            reply.bytes.append(contentsOf: chunk[0..<count])
            if reply.bytes.count > 4 << 20 { break }
        }
        return reply
    }

    /// `GET path` with the usual headers (`Connection: close`, and no half-close, which libmicrohttpd may
    /// take for a client gone).
    static func get(port: UInt16, _ path: String, timeout: Double = 10) -> Reply {
        exchange(
            port: port, Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
            finish: false, timeout: timeout)
    }
}
