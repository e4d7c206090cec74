import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads lines from a pipe with a deadline per line, so a worker that hangs is noticed instead of
/// hanging the bench.
final class LineReader {
    /// What a read ended with.
    enum Outcome {
        /// A complete line, without its newline.
        case line(String)
        /// The writer closed the pipe.
        case end
        /// No complete line within the timeout.
        case timeout
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var ended = false

    /// Reads from `descriptor`, which the caller keeps open.
    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line, waiting at most `timeout` seconds.
    func next(timeout: Double) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            if ended {
                if buffer.isEmpty { return .end }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return .line(line)
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return .timeout }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                ended = true
                continue
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
