import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Plain POSIX sockets for tests that must send what no HTTP client would, or listen without answering.
///
/// The blocking reads run on their own thread: Swift Testing runs tests on the concurrency runtime's
/// few cooperative threads, and blocking those would starve the server's handler tasks.
public enum RawSocket {
    /// Connects to 127.0.0.1:`port`, sends `bytes`, and returns everything read until the server
    /// closes (or 5 seconds of silence).
    public static func exchange(port: UInt16, sending bytes: [UInt8]) async -> String {
        await offThread {
            guard let answer = exchangeBlocking(port: port, sending: bytes) else {
                preconditionFailure("connect failed")
            }
            return answer
        }
    }

    /// The same, blocking the calling thread: for a test's own thread (``DedicatedThread``), never a task.
    /// `nil` when nothing listens there (the server ended): the test says so, rather than stop the process.
    public static func exchangeBlocking(port: UInt16, sending bytes: [UInt8]) -> String? {
        guard let fd = tryConnect(port: port) else { return nil }
        defer { close(fd) }
        send(fd, bytes)
        return readAllBlocking(fd)
    }

    /// Reads `fd` until end of stream, error or timeout, on a thread of its own.
    public static func readAll(_ fd: Int32) async -> String {
        await offThread { readAllBlocking(fd) }
    }

    /// Whether `fd` has something to read (bytes, or the server's close) within `milliseconds`, on a thread
    /// of its own; nothing is read.
    public static func hasInput(_ fd: Int32, within milliseconds: Int32) async -> Bool {
        await offThread {
            var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&watched, 1, milliseconds) > 0 ? "yes" : ""
        } == "yes"
    }

    /// Runs blocking `work` on a new thread and returns its result.
    private static func offThread(_ work: @escaping @Sendable () -> String) async -> String {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// A connected socket to 127.0.0.1:`port`, with a 5-second receive timeout.
    public static func connect(port: UInt16) -> Int32 {
        guard let fd = tryConnect(port: port) else { preconditionFailure("connect failed") }
        return fd
    }

    /// A connected socket to 127.0.0.1:`port`, with a 5-second receive timeout; `nil` when the connection
    /// is refused.
    public static func tryConnect(port: UInt16) -> Int32? {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        precondition(fd >= 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Darwin)
                    Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard result == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Sends all of `bytes`.
    public static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if sent <= 0 { return }
            offset += sent
        }
    }

    private static func readAllBlocking(_ fd: Int32) -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A socket listening on a free loopback port that never accepts: connections complete in the
    /// backlog and then hear nothing. Returns the descriptor and port.
    public static func silentListener() -> (Int32, UInt16) {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = loopback(port: 0)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        listen(fd, 8)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
