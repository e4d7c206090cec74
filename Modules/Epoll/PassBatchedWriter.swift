import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Lines written to a file descriptor with one `write` per event-loop pass: a line logged on a loop's
/// thread waits in memory until the work of that pass is done (microseconds), then goes out with every
/// other line of the pass, as nginx's buffered access log does without its delay; a line logged anywhere
/// else is written at once, with any waiting. A write the system cuts short is finished; one that fails
/// drops what it could not write.
///
/// Safety (`@unchecked Sendable`): `pending` is read and written under `lock` only; `descriptor` is
/// immutable. Writes of whole batches are ordered by `writing`, held while one is written.
package final class PassBatchedWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private let writing = NSLock()
    private var pending: [UInt8] = []
    private var spare: [UInt8] = []

    /// A writer to `descriptor` (standard error, say), which it does not close.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `line` and a newline: at the end of the current pass on a loop's thread, else now.
    package func write(line: String) {
        lock.lock()
        pending.append(contentsOf: line.utf8)
        pending.append(0x0A)
        lock.unlock()
        if let loop = EpollLoop.current {
            loop.atEndOfPass(key: ObjectIdentifier(self)) { [self] in flush() }
        } else {
            flush()
        }
    }

    /// Writes every line waiting.
    package func flush() {
        writing.lock()
        defer { writing.unlock() }
        lock.lock()
        swap(&pending, &spare)
        lock.unlock()
        defer { spare.removeAll(keepingCapacity: spare.capacity <= 1 << 16) }
        spare.withUnsafeBytes { bytes in
            guard var base = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let written = Glibc.write(descriptor, base, left)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                base += written
                left -= written
            }
        }
    }
}
