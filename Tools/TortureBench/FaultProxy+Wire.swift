import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fault proxy's reading and rewriting of requests on the wire.
extension FaultProxy {
    /// `request` with its `Connection` fields replaced by `Connection: close`.
    static func closing(_ request: [UInt8]) -> [UInt8] {
        guard let end = firstIndex(of: [13, 10, 13, 10], in: request) else { return request }
        let lines = String(decoding: request[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let kept = lines.filter { !$0.lowercased().hasPrefix("connection:") }
        let head = ([kept[0], "Connection: close"] + kept.dropFirst()).joined(separator: "\r\n")
        return Array(head.utf8) + request[end...]
    }

    /// One HTTP request: its head and the body its Content-Length announces.
    static func readRequest(_ fd: Int32) -> [UInt8]? {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            if let end = firstIndex(of: [13, 10, 13, 10], in: buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
                var length = 0
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                if buffer.count >= end + 4 + length { return buffer }
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
            if buffer.count > 1 << 20 { return nil }
        }
    }
}
