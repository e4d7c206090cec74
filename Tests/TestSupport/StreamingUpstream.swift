public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A raw HTTP/1.1 upstream on 127.0.0.1 for streaming tests: each connection's request head is read,
/// then, on a thread of its own, a `200` with `bytes` body bytes (byte i is `i % 256`) is sent in 64 KiB
/// blocking writes (so a reader that falls behind holds it back), shaped by the ``Script``: a late head,
/// a body cut short, a body that goes silent. It records how the last connection ended.
public final class StreamingUpstream: Sendable {
    /// How each answer goes.
    public struct Script: Sendable {
        /// The body's length.
        public var bytes: Int
        /// A wait before the head.
        public var headDelay: Duration = .zero
        /// Closes the connection after this many body bytes.
        public var cutAfter: Int?
        /// Sends nothing more after this many body bytes, until the client closes.
        public var stallAfter: Int?
        /// Sends `Content-Length`; without it, the body ends when the connection closes.
        public var lengthKnown = true
        /// A wait before the body's last byte (the rest sent at once).
        public var lastByteDelay: Duration = .zero

        /// A script sending `bytes` bytes.
        public init(bytes: Int) {
            self.bytes = bytes
        }
    }

    /// How a connection ended.
    public enum Outcome: Sendable, Equatable {
        /// Every byte was written.
        case sent
        /// The script closed the connection early.
        case cut
        /// A write failed or a read saw the end: the client closed the connection.
        case clientClosed
    }

    /// The port it listens on.
    public let port: UInt16
    private let listener: Int32
    private let record = Locked<(sent: Int, outcome: Outcome?)>((0, nil))

    /// Listens on a free loopback port and answers every connection with `script`.
    public init(_ script: Script) {
        let (fd, port) = RawSocket.silentListener()
        listener = fd
        self.port = port
        let record = record
        Thread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                Thread { Self.serve(connection, script, record) }.start()
            }
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// The base URL.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Body bytes written so far on the last connection.
    public var sent: Int { record.withLock { $0.sent } }

    /// How the last connection ended, once it has.
    public var outcome: Outcome? { record.withLock { $0.outcome } }

    /// Waits until the last connection has ended (a test's time limit bounds the wait), and says how.
    public func ended() async -> Outcome {
        while true {
            if let outcome { return outcome }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The bytes every body is cut from (byte i is `i % 256`), made once: made by each connection's thread,
    /// the first ones racing under ThreadSanitizer deadlocked in the Swift runtime's first instantiation of
    /// the range's metadata.
    private static let pattern = (0..<(65536 + 256)).map { UInt8(truncatingIfNeeded: $0) }

    private static func serve(_ fd: Int32, _ script: Script, _ record: Locked<(sent: Int, outcome: Outcome?)>) {
        defer { close(fd) }
        record.withLock { $0 = (0, nil) }
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)), recv(fd, &byte, 1, 0) == 1 { head.append(byte) }
        Thread.sleep(forTimeInterval: Double(script.headDelay.components.seconds) + Double(script.headDelay.components.attoseconds) / 1e18)
        let length = script.lengthKnown ? "Content-Length: \(script.bytes)\r\n" : ""
        guard write(fd, Array("HTTP/1.1 200 OK\r\n\(length)Connection: close\r\nX-Upstream: yes\r\n\r\n".utf8)) else {
            return record.withLock { $0.outcome = .clientClosed }
        }
        let pattern = Self.pattern
        let end = min(script.bytes, script.cutAfter ?? .max, script.stallAfter ?? .max)
        var sent = 0
        while sent < end {
            var size = min(65536, end - sent)
            let holdsLast = script.lastByteDelay > .zero && end == script.bytes
            if holdsLast, sent + size == end {
                if size == 1 {
                    Thread.sleep(
                        forTimeInterval: Double(script.lastByteDelay.components.seconds)
                            + Double(script.lastByteDelay.components.attoseconds) / 1e18)
                } else {
                    size -= 1
                }
            }
            guard write(fd, Array(pattern[(sent % 256)..<(sent % 256 + size)])) else {
                return record.withLock { $0.outcome = .clientClosed }
            }
            sent += size
            record.withLock { $0.sent = sent }
        }
        if script.stallAfter != nil, sent < script.bytes {
            // Silence until the client gives up and closes (a read then sees the end).
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            while recv(fd, &byte, 1, 0) > 0 {}
            return record.withLock { $0.outcome = .clientClosed }
        }
        record.withLock { $0.outcome = sent < script.bytes ? .cut : .sent }
    }

    /// Writes all of `bytes` (blocking while the client is behind); `false` once the client has closed.
    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                #if canImport(Glibc)
                    Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(fd, raw.baseAddress! + offset, raw.count - offset, 0)
                #endif
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }
}
