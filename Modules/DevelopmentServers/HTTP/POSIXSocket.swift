#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin, checked calls on POSIX sockets for the loopback server. Every descriptor is close-on-exec,
/// and writes never raise SIGPIPE.
enum POSIXSocket {
    /// A TCP socket bound to 127.0.0.1:`port` (0 for any free port) and listening.
    /// - Returns: the descriptor and the bound port.
    static func listenOnLoopback(port: UInt16, backlog: Int32 = 128) throws(LoopbackHTTPServerError) -> (Int32, UInt16)
    {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { throw .socket(errno: errno) }
        #if canImport(Darwin)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #endif
        // Lets a fixed port be reused at once after a restart, while old connections sit in TIME_WAIT.
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1: never another interface.
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .bind(port: port, errno: code)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw .listen(errno: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw .socket(errno: code)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Accepts one connection, or returns -1 with `errno` set.
    static func accept(_ listener: Int32) -> Int32 {
        #if canImport(Darwin)
            let fd = Darwin.accept(listener, nil, nil)
        #else
            // accept4 would set close-on-exec atomically, but Glibc's module map does not export it.
            let fd = Glibc.accept(listener, nil, nil)
        #endif
        if fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            #if canImport(Darwin)
                var yes: Int32 = 1
                _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
        }
        return fd
    }

    /// A pipe whose write end wakes a `poll` on its read end.
    static func makePipe() throws(LoopbackHTTPServerError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .socket(errno: errno) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    /// Sets both the receive and send timeouts of `fd`, so a stalled peer cannot hold a thread forever.
    static func setTimeouts(_ fd: Int32, seconds: Double) {
        setTimeout(fd, SO_RCVTIMEO, seconds: seconds)
        setTimeout(fd, SO_SNDTIMEO, seconds: seconds)
    }

    /// Sets the receive timeout of `fd`; at least a millisecond, since zero would mean "never".
    static func setReceiveTimeout(_ fd: Int32, seconds: Double) {
        setTimeout(fd, SO_RCVTIMEO, seconds: seconds)
    }

    private static func setTimeout(_ fd: Int32, _ option: Int32, seconds: Double) {
        let seconds = max(seconds, 0.001)
        let whole = seconds.rounded(.down)
        var value = timeval()
        value.tv_sec = .init(whole)
        value.tv_usec = .init((seconds - whole) * 1_000_000)
        _ = setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads up to `buffer.count` bytes: the count, 0 at end of stream, or -1 with `errno` set
    /// (`EAGAIN`/`EWOULDBLOCK` when the receive timeout expired). Retries on `EINTR`.
    static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Writes all of `bytes` to a socket (or, with `isSocket: false`, a pipe); returns false when the
    /// peer went away or the send timed out.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], isSocket: Bool = true) -> Bool {
        #if canImport(Darwin)
            let flags: Int32 = 0  // SO_NOSIGPIPE is set on accepted sockets instead.
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                isSocket
                    ? send(fd, raw.baseAddress! + offset, raw.count - offset, flags)
                    : write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Half-closes `fd` in the given direction (`SHUT_RD`, `SHUT_WR`, `SHUT_RDWR`).
    static func shutdown(_ fd: Int32, _ how: Int32) {
        #if canImport(Darwin)
            _ = Darwin.shutdown(fd, how)
        #else
            _ = Glibc.shutdown(fd, how)
        #endif
    }

    /// `SHUT_RD` as an `Int32`.
    static var shutRead: Int32 { Int32(SHUT_RD) }
    /// `SHUT_WR` as an `Int32`.
    static var shutWrite: Int32 { Int32(SHUT_WR) }

    /// Closes `fd`.
    static func close(_ fd: Int32) {
        #if canImport(Darwin)
            _ = Darwin.close(fd)
        #else
            _ = Glibc.close(fd)
        #endif
    }

    /// Waits until `listener` can accept or `wake` is readable; returns which, or nil after a poll error.
    static func waitForConnection(_ listener: Int32, orWake wake: Int32) -> (accept: Bool, wake: Bool)? {
        var fds = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            return (fds[0].revents != 0, fds[1].revents != 0)
        }
    }

    /// The system's text for `code`.
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
