import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP listener on 127.0.0.1 that never accepts and never answers: the kernel completes each
/// connection into the backlog, a client sends its request, and no reply ever comes.
public final class SilentServer: Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let descriptor: Int32

    /// Listens on a free loopback port.
    public init() throws {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Its base URL.
    public var url: String { "http://127.0.0.1:\(port)" }

    deinit {
        close(descriptor)
    }
}
