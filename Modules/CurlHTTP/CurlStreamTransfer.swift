import CCurl
import Data
import Foundation
import Locking

/// One request whose response body streams: set up as ``CurlTransfer`` sets it up (without its limit on
/// the whole transfer's time), run by a ``CurlEventLoop``, its head handed over as soon as it is complete
/// and its body written into an ``HTTPBodyWriter`` until the end (paused while the reader is a full
/// buffer behind); stopped early by ``cancel()`` from any thread, or by the reader going away.
final class CurlStreamTransfer: Sendable {
    private let transfer: CurlTransfer
    private let request: HTTPRequest
    private let timeout: Duration
    private let limit: Int
    private let cancelled = Locked(false)

    /// A transfer of `request` to `url`: `timeout` bounds the connection, the wait for the head and each
    /// wait for more of the body; more than `limit` body bytes in all fail it.
    init(url: String, request: HTTPRequest, timeoutMilliseconds: Int, limit: Int) {
        transfer = CurlTransfer(url: url, request: request, timeoutMilliseconds: timeoutMilliseconds, limit: limit)
        self.request = request
        timeout = .milliseconds(timeoutMilliseconds)
        self.limit = limit
    }

    /// Stops the transfer at curl's next progress call (within a second, also while it waits for the head).
    func cancel() {
        cancelled.withLock { $0 = true }
    }

    /// Starts the transfer on `loop`: `deliver` gets the head (status and fields) the moment it is complete,
    /// or why there is none; then the body goes into `writer`, which is finished, or failed with why the
    /// body ended early. Returns at once. The handle comes from `pool` and goes back to it, its connection
    /// kept, after a body read to its end.
    func start(
        in pool: CurlHandlePool, on loop: CurlEventLoop, into writer: HTTPBodyWriter,
        deliver: @escaping (Result<(Int, HTTPHeaders), HTTPClientError>) -> Void
    ) {
        let sink = CurlStreamSink(
            writer: writer, timeout: timeout, holdsSmallBodies: request.method != "HEAD",
            isCancelled: { [cancelled] in cancelled.withLock { $0 } }, deliver: deliver)
        // The sink outlives the transfer: `finished` holds it until the loop is done with the handle, and
        // curl's callbacks reach it through this pointer on the loop's thread only.
        guard let configured = transfer.configuredHandle(from: pool, context: Unmanaged.passUnretained(sink).toOpaque())
        else { return sink.fail(.transport("the HTTP library could not start")) }
        let handle = configured.raw
        // No limit on the whole transfer (the sink's progress callback times the waits instead), and the
        // sink's callbacks in place of the buffering ones.
        _ = hardtack_curl_set_long(handle, CURLOPT_TIMEOUT_MS, 0)
        if request.method == "HEAD" { _ = hardtack_curl_set_long(handle, CURLOPT_NOBODY, 1) }
        _ = hardtack_curl_set_write(handle, CURLOPT_WRITEFUNCTION, CurlStreamSink.receiveBody)
        _ = hardtack_curl_set_write(handle, CURLOPT_HEADERFUNCTION, CurlStreamSink.receiveHeader)
        _ = hardtack_curl_set_progress(handle, CurlStreamSink.progress)
        let id = loop.transferID(for: configured.pooled)
        sink.resumeTransfer = { loop.resume(id) }
        let started = loop.start(configured.pooled, as: id) { [transfer] code in
            let reusable = code == CURLE_OK && (sink.delivered || sink.heldWhole) && !sink.timedOut
            transfer.release(configured, to: pool, reusable: reusable)
            self.finish(code, sink: sink, writer: writer)
        }
        if !started {
            transfer.release(configured, to: pool, reusable: false)
            sink.fail(.transport("the HTTP library could not start"))
        }
    }

    /// Hands over the end of a transfer that curl ended with `code`: a held body's head, why there is
    /// no head, or the end of a streamed body. Called on the loop's thread, which is done with the transfer:
    /// whoever takes a head (the whole answer, or why there is none) goes on on this thread at once, as
    /// far as it can without waiting. (Not whoever reads a streamed body: its end reaches a reader that may
    /// be anywhere in its stream.)
    private func finish(_ code: CURLcode, sink: CurlStreamSink, writer: HTTPBodyWriter) {
        // A held body complete is the answer, whatever curl made of the connection after it.
        if sink.heldWhole { return DispatchTaskExecutor.runningNextJobHere { sink.deliverHeld() } }
        let failure: HTTPClientError? =
            switch code {
            case CURLE_OK: nil
            case _ where sink.timedOut: .timedOut
            case CURLE_FILESIZE_EXCEEDED: .responseTooLarge(limit: limit)
            default: HTTPClientError(curl: code, cancelled: cancelled.withLock { $0 })
            }
        guard sink.delivered else {
            return DispatchTaskExecutor.runningNextJobHere {
                sink.fail(failure ?? .transport("the reply was not HTTP"))
            }
        }
        if let failure { writer.fail(failure) } else { writer.finish() }
    }
}
