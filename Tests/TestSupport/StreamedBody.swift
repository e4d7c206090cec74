public import Data
import Foundation

/// Reading a streamed body in tests whose bodies follow the one pattern (byte i is `i % 256`, as
/// ``StreamingUpstream`` and the test provider's `/api/stream` send).
public enum StreamedBody {
    /// Reads `body` to its end or failure: the bytes read, whether each chunk's first and last byte are
    /// where the pattern puts them, and the failure, if any.
    public static func drain(_ body: HTTPBodyStream) async -> (count: Int, inOrder: Bool, failure: HTTPClientError?) {
        var count = 0
        var inOrder = true
        do throws(HTTPClientError) {
            while let chunk = try await body.next() {
                if chunk.first != UInt8(truncatingIfNeeded: count)
                    || chunk.last != UInt8(truncatingIfNeeded: count + chunk.count - 1)
                {
                    inOrder = false
                }
                count += chunk.count
            }
            return (count, inOrder, nil)
        } catch {
            return (count, inOrder, error)
        }
    }

    /// ``drain(_:)`` on a thread of its own, which waits for bytes on a semaphore and checks every byte: a
    /// large body makes its reader wait about once per buffer's worth (some 192 times for 48 MiB through
    /// 256 KiB), and each wait of a task on the suite's busy shared threads may cost a second, which only
    /// measures the machine's load. Cancelling the task cancels the stream, as ``drain(_:)`` does.
    public static func drainOnThread(_ body: HTTPBodyStream) async -> (
        count: Int, inOrder: Bool, failure: HTTPClientError?
    ) {
        await withTaskCancellationHandler {
            await DedicatedThread.run {
                var count = 0
                var inOrder = true
                var chunk = [UInt8](repeating: 0, count: 64 << 10)
                let arrived = DispatchSemaphore(value: 0)
                while true {
                    let read = chunk.withUnsafeMutableBytes { bytes in
                        body.read(into: bytes, suspending: {}, wake: { arrived.signal() })
                    }
                    switch read {
                    case .bytes(let n):
                        for index in 0..<n where chunk[index] != UInt8(truncatingIfNeeded: count + index) {
                            inOrder = false
                            break
                        }
                        count += n
                    case .waiting: arrived.wait()
                    case .end: return (count, inOrder, nil)
                    case .failed(let error): return (count, inOrder, error)
                    }
                }
            }
        } onCancel: {
            body.cancel()
        }
    }
}
