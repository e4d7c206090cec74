import CCurl
import Data
import Foundation

/// What curl's callbacks collect during one transfer: the header fields of the last response (a
/// `100 Continue` is dropped) and the body up to the limit. Used only on the transfer's thread.
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
        // On bytes: every upstream answer's fields pass here (Foundation's trimming cost a gateway call more
        // than its whole transfer's parsing).
        let line = UnsafeRawBufferPointer(start: bytes, count: length)
        if line.starts(with: "HTTP/".utf8) {
            sink.headers = HTTPHeaders()
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let name = trimmed(line[..<colon])
            let value = trimmed(line[(colon + 1)...])
            if !name.isEmpty {
                sink.headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
            }
        }
        return length
    }

    /// `bytes` without the spaces, tabs and line ends around it.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var slice = bytes
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return slice
    }

    /// curl's progress callback, called at least once a second even while nothing arrives: non-zero
    /// stops the transfer once the caller has cancelled.
    static let progress: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = {
        context, _, _, _, _ in
        guard let context else { return 1 }
        return Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue().isCancelled() ? 1 : 0
    }
}
