#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport

/// A client that sends its head a byte at a time, on a thread of its own, and one that sends many quick
/// requests on one connection.
enum Trickle {
    /// Connects to `port`, sends `first` whole (a request, whose answer is read) if given, then a head that
    /// never ends, a byte at a time, until the server ends the connection or 20 s pass: its request line's
    /// bytes `linePause` apart, then the fields' 300 ms apart. Returns the seconds from the first trickled
    /// byte to the end, or `nil` when the connection was still open.
    static func run(port: UInt16, first: [UInt8]?, linePause: Duration = .milliseconds(300)) async -> Double? {
        await withCheckedContinuation { continuation in
            Thread {
                let socket = RawSocket.connect(port: port)
                defer { close(socket) }
                if let first {
                    RawSocket.send(socket, first)
                    guard readAnswer(socket) else { return continuation.resume(returning: 0) }
                }
                let line = Array("GET /slow HTTP/1.1\r\n".utf8)
                let head = line + Array(("Host: x\r\nX-Pad: " + String(repeating: "a", count: 200)).utf8)
                let start = Date()
                for (index, byte) in head.enumerated() {
                    guard Date().timeIntervalSince(start) < 20 else { break }
                    let pause = index < line.count ? linePause : .milliseconds(300)
                    if ended(socket, after: [byte], waiting: pause) {
                        return continuation.resume(returning: Date().timeIntervalSince(start))
                    }
                }
                continuation.resume(returning: nil)
            }.start()
        }
    }

    /// Sends `requests` requests on one connection, `pause` apart, each answer read before the next; returns
    /// how many were answered.
    static func keptAlive(port: UInt16, requests: Int, pause: Duration) async -> Int {
        await withCheckedContinuation { continuation in
            Thread {
                let socket = RawSocket.connect(port: port)
                defer { close(socket) }
                var answered = 0
                for _ in 0..<requests {
                    RawSocket.send(socket, Array("GET /quick HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                    guard readAnswer(socket) else { break }
                    answered += 1
                    Thread.sleep(forTimeInterval: pause / .seconds(1))
                }
                continuation.resume(returning: answered)
            }.start()
        }
    }

    /// Reads one answer whose body is `ok`; false when the connection ends first.
    private static func readAnswer(_ socket: Int32) -> Bool {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !received.ends(with: Array("\r\n\r\nok".utf8)) {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return false }
            received.append(contentsOf: chunk[0..<count])
        }
        return true
    }

    /// Sends `bytes` and waits up to `pause` for the server to end the connection: true when it did (a read
    /// sees the end or an error, or the send fails).
    private static func ended(_ socket: Int32, after bytes: [UInt8], waiting pause: Duration) -> Bool {
        let sent = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent < 0 { return true }
        var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, Int32(pause / .milliseconds(1))) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
    }
}

extension Array where Element: Equatable {
    /// Whether the array ends with `suffix`.
    func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
