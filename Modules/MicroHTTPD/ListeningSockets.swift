#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The listening sockets of a server whose event loops each accept their own connections: one per loop,
/// all bound to the same address with `SO_REUSEPORT` when there are several, so that the kernel spreads
/// new connections over them (as nginx's `reuseport` does); non-blocking and close-on-exec.
///
/// The first is bound without `SO_REUSEPORT` and given it only once bound, so that an address another
/// server holds is refused as busy rather than shared (the others join the first's group).
enum ListeningSockets {
    /// `count` sockets listening on `host`:`port` (0: the kernel picks a free port, which all share), and
    /// the port they listen on.
    /// - Throws: ``MicroHTTPServerError`` when `host` is not an IP address or the address cannot be bound.
    static func open(
        host: String, port: UInt16, count: Int
    ) throws(MicroHTTPServerError) -> (sockets: [Int32], port: UInt16) {
        var storage = sockaddr_storage()
        guard let family = fill(&storage, host: host, port: port) else {
            throw MicroHTTPServerError("\(host) is not an IP address to listen on")
        }
        var sockets: [Int32] = []
        var bound = port
        do throws(MicroHTTPServerError) {
            for index in 0..<max(1, count) {
                setPort(&storage, family: family, bound)
                let socket = try listening(
                    family: family, address: storage, joining: index > 0, grouped: count > 1, host: host, port: bound)
                sockets.append(socket)
                bound = boundPort(socket) ?? bound
            }
        } catch {
            for socket in sockets { close(socket) }
            throw error
        }
        return (sockets, bound)
    }

    /// One socket bound to `address` and listening: `joining` the group of sockets already bound there, or
    /// the group's first, which others may join once it is bound when `grouped`.
    private static func listening(
        family: Int32, address: sockaddr_storage, joining: Bool, grouped: Bool, host: String, port: UInt16
    ) throws(MicroHTTPServerError) -> Int32 {
        #if os(Linux)
            let socket = Glibc.socket(
                family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let socket = Darwin.socket(family, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw failure(host: host, port: port) }
        var on: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if joining { _ = setsockopt(socket, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size)) }
        // An IPv6 address serves IPv6 only, as libmicrohttpd's own sockets do.
        if family == AF_INET6 {
            _ = setsockopt(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = address
        let length = socklen_t(family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        if bound == 0, grouped, !joining {
            _ = setsockopt(socket, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bound == 0, listen(socket, SOMAXCONN) == 0 else {
            let error = failure(host: host, port: port)
            close(socket)
            throw error
        }
        #if !os(Linux)
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        #endif
        return socket
    }

    private static func failure(host: String, port: UInt16) -> MicroHTTPServerError {
        MicroHTTPServerError("cannot listen on \(host):\(port) (\(String(cString: strerror(errno))))")
    }

    /// The port `socket` is bound to.
    private static func boundPort(_ socket: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else { return nil }
        return withUnsafeBytes(of: &storage) { raw in
            switch Int32(
                raw.load(fromByteOffset: MemoryLayout<sockaddr_storage>.offset(of: \.ss_family)!, as: sa_family_t.self))
            {
            case AF_INET: UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            case AF_INET6: UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
            default: nil
            }
        }
    }

    /// Sets the port of the address in `storage`.
    private static func setPort(_ storage: inout sockaddr_storage, family: Int32, _ port: UInt16) {
        withUnsafeMutableBytes(of: &storage) { raw in
            if family == AF_INET6 {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_port = port.bigEndian
            } else {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_port = port.bigEndian
            }
        }
    }

    /// Fills `storage` with `host`:`port`; the address family, or `nil` when `host` is no IP address.
    private static func fill(_ storage: inout sockaddr_storage, host: String, port: UInt16) -> Int32? {
        withUnsafeMutableBytes(of: &storage) { raw -> Int32? in
            let v4 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            if inet_pton(AF_INET, host, &v4.pointee.sin_addr) == 1 {
                v4.pointee.sin_family = sa_family_t(AF_INET)
                v4.pointee.sin_port = port.bigEndian
                return AF_INET
            }
            let v6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
            if inet_pton(AF_INET6, host, &v6.pointee.sin6_addr) == 1 {
                v6.pointee.sin6_family = sa_family_t(AF_INET6)
                v6.pointee.sin6_port = port.bigEndian
                return AF_INET6
            }
            return nil
        }
    }
}
