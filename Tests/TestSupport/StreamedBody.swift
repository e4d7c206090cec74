public import Data

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
}
