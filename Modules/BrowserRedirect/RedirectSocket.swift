import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The socket calls of the redirect listener: loopback only, close-on-exec, bounded reads, no SIGPIPE.
enum RedirectSocket {
    /// The most bytes read of a request head; a redirect is far smaller.
    static let maximumHeadBytes = 8 * 1024

    /// A TCP socket bound to 127.0.0.1 on a port the system chooses, listening.
    static func listenOnLoopback() throws(RedirectListenerError) -> (Int32, UInt16) {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { throw .socket(call: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1, never another interface.
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let code = errno
            _ = systemClose(fd)
            throw .socket(call: "bind/listen", errno: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            _ = systemClose(fd)
            throw .socket(call: "getsockname", errno: code)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Whether `fd` has a connection or data within `milliseconds`.
    static func readable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    /// An accepted connection with a 5-second read and write timeout, or `nil`.
    static func accept(_ fd: Int32) -> Int32? {
        #if canImport(Darwin)
            let connection = Darwin.accept(fd, nil, nil)
        #else
            let connection = Glibc.accept(fd, nil, nil)
        #endif
        guard connection >= 0 else { return nil }
        // accept4(SOCK_CLOEXEC) is not visible from Swift's Glibc; marked at once instead, so a program
        // started later (a browser) does not inherit the connection.
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return connection
    }

    /// The request target of a `GET` whose head arrives whole within the limits, or `nil`.
    static func readRequestTarget(_ connection: Int32) -> String? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while head.count < maximumHeadBytes {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            head.append(contentsOf: buffer.prefix(count))
            if head.count >= 4, head.suffix(4) == [13, 10, 13, 10] { break }
            if let end = head.firstIndex(of: 10), head[..<end].contains(32) { break }
        }
        guard let lineEnd = head.firstIndex(of: 10) else { return nil }
        let line = String(decoding: head[..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[1].hasPrefix("/"), parts[2].hasPrefix("HTTP/1.") else { return nil }
        return String(parts[1])
    }

    /// Answers with a small HTML page showing `message` (escaped), which must never hold a secret.
    static func respond(_ connection: Int32, status: String, message: String) {
        let escaped = message.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let body = "<!doctype html><meta charset=\"utf-8\"><title>Hardtack</title><p>\(escaped)</p>\n"
        let head = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n"
        var bytes = Array((head + body).utf8)
        var sent = 0
        while sent < bytes.count {
            #if canImport(Darwin)
                let flags: Int32 = 0
            #else
                let flags = Int32(MSG_NOSIGNAL)
            #endif
            let count = bytes.withUnsafeMutableBytes { send(connection, $0.baseAddress! + sent, $0.count - sent, flags) }
            guard count > 0 else { return }
            sent += count
        }
    }
}
