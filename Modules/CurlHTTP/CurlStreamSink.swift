import CCurl
import Data
import Foundation

/// What curl's callbacks do during one streamed transfer: collect the head of the final response (a
/// `1xx` is dropped), hand it over the moment it is complete (a `HEAD`'s once the transfer is over, whole),
/// then copy the body into the writer; while
/// the reader is a full buffer behind, the transfer is paused (the upstream is then held back by TCP) and
/// resumed once the reader makes room. Used only on the multi's loop.
///
/// The timeout bounds the wait for the head from the start, then each wait for the next bytes; time
/// paused for the reader is not counted.
///
/// A small body of known length (at most ``heldBodyBytes``, as nginx buffers a proxied answer) is held with
/// its head, which is handed over once the whole body is in the writer, finished, and the transfer over
/// (``deliverHeld()``): the reader can then take
/// it whole (``HTTPBodyStream/takeWhole()``), and a server sends it with its length rather than in chunks,
/// without waiting on the transfer again. Such a body that ends early, or goes silent past the timeout,
/// fails the call (there is no head yet) instead of cutting an answer short.
final class CurlStreamSink {
    /// Where the body goes.
    let writer: HTTPBodyWriter
    /// Whether the head was handed over.
    private(set) var delivered = false
    /// Whether a held body is complete, its head waiting for ``deliverHeld()``.
    private(set) var heldWhole = false
    /// What resumes the transfer once paused (set before it starts).
    var resumeTransfer: @Sendable () -> Void = {}
    /// Whether the transfer is paused, waiting for the reader to make room.
    private var paused = false
    /// Whether the head, or the next bytes, took longer than the timeout (the transfer was stopped).
    private(set) var timedOut = false
    private let deliver: (Result<(Int, HTTPHeaders), HTTPClientError>) -> Void
    private let isCancelled: () -> Bool
    private let timeout: Duration
    private let started = ContinuousClock.now
    private var lastBytes = ContinuousClock.now
    private var status = 0
    private var headers = HTTPHeaders()
    /// Whether the request was `HEAD`: its answer's length describes no body, so no body is held with its head,
    /// and the head waits for the transfer's end instead.
    private let isHead: Bool
    /// The length of the body held with its head, while it is; the bytes of it received.
    private var held: (length: Int, received: Int)?
    /// Whether the sink itself finished the writer (a held body, complete): the transfer then ends as curl
    /// sees fit, its connection kept.
    private var finishedHere = false
    /// Whether the head is complete and waits for the transfer's end: a `HEAD`'s, which has no body to stream,
    /// handed over whole (its body finished, empty) once curl is done (``deliverHeadOnly()``).
    private(set) var headAwaitsEnd = false

    /// The largest body held with its head.
    static let heldBodyBytes = 64 << 10

    /// A sink writing into `writer`, handing the head to `deliver`, for a `HEAD` request when `isHead`.
    init(
        writer: HTTPBodyWriter, timeout: Duration, isHead: Bool, isCancelled: @escaping () -> Bool,
        deliver: @escaping (Result<(Int, HTTPHeaders), HTTPClientError>) -> Void
    ) {
        self.isHead = isHead
        self.writer = writer
        self.timeout = timeout
        self.isCancelled = isCancelled
        self.deliver = deliver
    }

    /// Hands over why there is no head, unless the head was handed over already.
    func fail(_ error: HTTPClientError) {
        guard !delivered else { return }
        delivered = true
        deliver(.failure(error))
    }

    /// Hands over the head of a held body that is complete, once the transfer is over (not from inside
    /// curl's callbacks, so that whoever takes it may run on this thread at once).
    func deliverHeld() {
        if heldWhole { deliverHead() }
    }

    /// Hands over a `HEAD`'s head with its empty body finished, once the transfer ended well; `false` when
    /// there is none waiting.
    func deliverHeadOnly() -> Bool {
        guard headAwaitsEnd, !delivered else { return false }
        writer.finish()
        deliverHead()
        return true
    }

    private func deliverHead() {
        guard !delivered else { return }
        delivered = true
        held = nil
        lastBytes = ContinuousClock.now
        deliver(.success((status, headers)))
    }

    /// The head is complete: handed over, held with a small body of known length, or, a `HEAD`'s, held for
    /// the transfer's end.
    private func headEnded() {
        guard !isHead else {
            headAwaitsEnd = true
            lastBytes = ContinuousClock.now
            return
        }
        // The length counts the bytes curl hands over: no `Accept-Encoding` is ever set, so curl decodes
        // nothing. The writer's buffer must take a held body without waiting, since no reader has a head.
        guard status != 204, status != 304, headers["Transfer-Encoding"] == nil,
            let text = headers["Content-Length"], let length = Int(Substring(text).trimmingOptionalWhitespace()),
            (1...min(Self.heldBodyBytes, writer.capacity)).contains(length)
        else { return deliverHead() }
        held = (length, 0)
        lastBytes = ContinuousClock.now
    }

    /// curl's header callback: a status line starts a response's head, a field is kept, the blank line
    /// ends the head (handed over if final). Lines after that (trailers) are dropped.
    static let receiveHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        guard let bytes, let context else { return 0 }
        let sink = Unmanaged<CurlStreamSink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard !sink.delivered else { return length }
        switch CurlHeaderLine(bytes, length: length) {
        case .status(let code):
            sink.status = code
            sink.headers = HTTPHeaders()
            sink.headers.reserveCapacity(8)
        case .field(let name, let value): sink.headers.add(name, value)
        case .end: if sink.status >= 200, sink.held == nil, !sink.headAwaitsEnd { sink.headEnded() }
        case .other: break
        }
        return length
    }

    /// curl's write callback: copies the bytes into the writer, or pauses the transfer while the reader is
    /// a full buffer behind (curl hands the same bytes again once resumed); a short count (the reader went
    /// away, or the limit) stops the transfer.
    static let receiveBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        guard let bytes, let context else { return 0 }
        let sink = Unmanaged<CurlStreamSink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        // A held body goes into the writer's buffer, which takes it all without waiting; a refusal (over
        // the limit) then stops the transfer with no head handed over, and the call fails.
        if sink.held == nil { sink.deliverHead() }
        switch sink.writer.write(UnsafeRawBufferPointer(start: bytes, count: length), whenRoom: sink.resumeTransfer) {
        case .written: sink.paused = false
        case .full:
            sink.paused = true
            return hardtack_curl_write_pause()
        case .closed: return 0
        }
        sink.lastBytes = ContinuousClock.now
        if let held = sink.held {
            sink.held = (held.length, held.received + length)
            if held.received + length >= held.length {
                sink.finishedHere = true
                sink.writer.finish()
                sink.heldWhole = true
            }
        }
        return length
    }

    /// Whether the transfer must stop, asked once a second while it runs: the caller cancelled, the reader
    /// went away, or the head or the next bytes are late (noted in ``timedOut``).
    func shouldStop() -> Bool {
        if isCancelled() || (!finishedHere && writer.isClosed) { return true }
        if paused { return false }
        let since = delivered || held != nil || headAwaitsEnd ? lastBytes : started
        if ContinuousClock.now - since > timeout {
            timedOut = true
            return true
        }
        return false
    }
}
