import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Lines written to a file descriptor with one `write` per event-loop pass: a line logged on a loop's
/// thread waits in memory until the work of that pass is done (microseconds), then goes out with every
/// other line of the pass, as nginx's buffered access log does without its delay; a line logged anywhere
/// else is written at once, with any that thread left waiting. Each thread's lines wait apart (a server's
/// loops log every request, and would otherwise wait for one another's lock). A write the system cuts
/// short is finished; one that fails drops what it could not write.
///
/// Safety (`@unchecked Sendable`): `descriptor` is immutable; the buffers are each thread's, under its
/// copy's lock. Writes of whole batches are ordered by `writing`, held while one is written.
package final class PassBatchedWriter: @unchecked Sendable {
    /// A thread's lines waiting, and the buffer the last batch went out from (kept for its capacity).
    private struct Buffers {
        var pending: [UInt8] = []
        var spare: [UInt8] = []
    }

    private let descriptor: Int32
    private let buffers = PerThread { Buffers() }
    private let writing = NSLock()

    /// A writer to `descriptor` (standard error, say), which it does not close.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `line` and a newline: at the end of the current pass on a loop's thread, else now.
    package func write(line: String) {
        buffers.withLock { buffers in
            buffers.pending.append(contentsOf: line.utf8)
            buffers.pending.append(0x0A)
        }
        if let loop = EpollLoop.current {
            loop.atEndOfPass(key: ObjectIdentifier(self)) { [self] in flush() }
        } else {
            flush()
        }
    }

    /// Writes every line the calling thread left waiting.
    package func flush() {
        writing.lock()
        defer { writing.unlock() }
        var batch = buffers.withLock { buffers -> [UInt8] in
            let batch = buffers.pending
            buffers.pending = buffers.spare
            buffers.spare = []
            return batch
        }
        batch.withUnsafeBytes { bytes in
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
        // The buffer comes back empty for the next batch, unless a burst made it large.
        batch.removeAll(keepingCapacity: batch.capacity <= 1 << 16)
        buffers.withLock { $0.spare = batch }
    }
}
