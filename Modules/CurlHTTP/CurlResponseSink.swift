import CCurl
import Data
import Foundation

/// What curl's callbacks collect during one transfer: the header fields of the last response (a
/// `100 Continue` is dropped) and the body up to the limit. Used only on the multi's loop.
final class CurlResponseSink {
    /// The header fields of the final response.
    private(set) var headers = HTTPHeaders()
    /// The body bytes so far.
    private(set) var body = Data()
    /// Whether the body went past the limit (the transfer was stopped).
    private(set) var overflowed = false
    /// Whether the caller cancelled.
    let isCancelled: () -> Bool
    private let limit: Int

    /// A sink that accepts at most `limit` body bytes.
    init(limit: Int, isCancelled: @escaping () -> Bool) {
        self.limit = limit
        self.isCancelled = isCancelled
    }

    /// curl's write callback: appends body bytes; a short count stops the transfer.
    static let receiveBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        guard let bytes, let context else { return 0 }
        let sink = Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        if sink.body.count + length > sink.limit {
            sink.overflowed = true
            sink.body = Data()
            return 0
        }
        sink.body.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: length)
        return length
    }

    /// curl's header callback: one line at a time; a status line starts a new response's fields.
    static let receiveHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        guard let bytes, let context else { return 0 }
        let sink = Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        switch CurlHeaderLine(bytes, length: length) {
        case .status: sink.headers = HTTPHeaders()
        case .field(let name, let value): sink.headers.add(name, value)
        case .end, .other: break
        }
        return length
    }
}
