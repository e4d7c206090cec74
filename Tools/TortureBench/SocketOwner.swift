import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which of some processes holds the other end of an accepted loopback connection: the peer's port is
/// looked up in `/proc/net/tcp` for the socket's inode, and that inode among the candidates' open
/// descriptors (`socket:[INODE]` in `/proc/PID/fd`). Linux only; `nil` when none of them holds it.
enum SocketOwner {
    /// The candidate whose socket is connected to `accepted` (a descriptor this process accepted).
    static func peer(of accepted: Int32, among candidates: [pid_t]) -> pid_t? {
        guard !candidates.isEmpty, let (local, remote) = ports(of: accepted),
            let inode = inode(localPort: remote, remotePort: local)
        else { return nil }
        let target = "socket:[\(inode)]"
        for pid in candidates {
            let directory = "/proc/\(pid)/fd"
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names where (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name)) == target {
                return pid
            }
        }
        return nil
    }

    /// This end's port and the peer's.
    private static func ports(of fd: Int32) -> (local: UInt16, remote: UInt16)? {
        var local = sockaddr_in()
        var remote = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let peered = withUnsafeMutablePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
        guard named, peered else { return nil }
        return (UInt16(bigEndian: local.sin_port), UInt16(bigEndian: remote.sin_port))
    }

    /// The inode of the IPv4 socket bound to `localPort` and connected to `remotePort`.
    private static func inode(localPort: UInt16, remotePort: UInt16) -> String? {
        let table = String(decoding: readFile("/proc/net/tcp"), as: UTF8.self)
        let local = String(format: ":%04X", localPort)
        let remote = String(format: ":%04X", remotePort)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
            // Established (01) only: a closed socket's line lingers in TIME_WAIT with inode 0.
            guard fields.count > 9, fields[1].hasSuffix(local), fields[2].hasSuffix(remote), fields[3] == "01",
                fields[9] != "0"
            else { continue }
            return String(fields[9])
        }
        return nil
    }
}
