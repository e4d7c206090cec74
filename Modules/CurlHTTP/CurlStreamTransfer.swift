import CCurl
import Data
import Foundation
import Synchronization

/// One request whose response body streams: set up as ``CurlTransfer`` sets it up (without its limit on
/// the whole transfer's time), run by a ``CurlMulti``, its head handed over as soon as it is complete
/// and its body written into an ``HTTPBodyWriter`` until the end (paused while the reader is a full
/// buffer behind); stopped early by ``cancel()`` from any thread, or by the reader going away.
final class CurlStreamTransfer: Sendable {
    private let transfer: CurlTransfer
    private let request: HTTPRequest
    private let timeout: Duration
    /// How often the multi checks the transfer: four times within the timeout (worked out once: a
    /// `Duration` division is 128-bit arithmetic).
    private let checkEvery: Duration
    private let limit: Int
    private let cancelled = Atomic(false)

    /// A transfer of `request` to `url`: `timeout` bounds the connection, the wait for the head and each
    /// wait for more of the body; more than `limit` body bytes in all fail it.
    init(url: String, request: HTTPRequest, timeoutMilliseconds: Int, limit: Int) {
        transfer = CurlTransfer(url: url, request: request, timeoutMilliseconds: timeoutMilliseconds, limit: limit)
        self.request = request
        timeout = .milliseconds(timeoutMilliseconds)
        checkEvery = .milliseconds(max(1, timeoutMilliseconds / 4))
        self.limit = limit
    }

    /// Stops the transfer within a second (the multi's next check), also while it waits for the head.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// Starts the transfer on `multi`: `deliver` gets the head (status and fields) the moment it is complete,
    /// or why there is none; then the body goes into `writer`, which is finished, or failed with why the
    /// body ended early. Returns at once. The handle comes from `pool` and goes back to it, its connection
    /// kept, after a body read to its end.
    func start(
        in pool: CurlHandlePool, on multi: CurlMulti, into writer: HTTPBodyWriter,
        deliver: @escaping (Result<(Int, HTTPHeaders), HTTPClientError>) -> Void
    ) {
        let sink = CurlStreamSink(
            writer: writer, timeout: timeout, isHead: request.method == "HEAD",
            isCancelled: { [self] in cancelled.load(ordering: .acquiring) }, deliver: deliver)
        // The sink outlives the transfer: `finished` holds it until the loop is done with the handle, and
        // curl's callbacks reach it through this pointer on the loop's thread only.
        guard
            let configured = transfer.configuredHandle(
                from: pool, context: Unmanaged.passUnretained(sink).toOpaque(), closing: multi.closeSocketContext)
        else { return sink.fail(.transport("the HTTP library could not start")) }
        let handle = configured.raw
        // No limit on the whole transfer (the sink times the waits instead, at the multi's checks), and the
        // sink's callbacks in place of the buffering ones.
        _ = hardtack_curl_set_long(handle, CURLOPT_TIMEOUT_MS, 0)
        _ = hardtack_curl_set_write(handle, CURLOPT_WRITEFUNCTION, CurlStreamSink.receiveBody)
        _ = hardtack_curl_set_write(handle, CURLOPT_HEADERFUNCTION, CurlStreamSink.receiveHeader)
        let id = multi.transferID(for: configured.pooled)
        sink.resumeTransfer = { multi.resume(id) }
        // The waits are timed at the multi's checks: four of them within the timeout.
        let started = multi.start(configured.pooled, as: id, checkEvery: checkEvery, stopIf: { sink.shouldStop() }) {
            [transfer] code in
            let reusable = code == CURLE_OK && (sink.delivered || sink.heldWhole || sink.headAwaitsEnd) && !sink.timedOut
            transfer.release(configured, to: pool, reusable: reusable)
            self.finish(code, sink: sink, writer: writer)
        }
        if !started {
            transfer.release(configured, to: pool, reusable: false)
            sink.fail(.transport("the HTTP library could not start"))
        }
    }

    /// Hands over the end of a transfer that curl ended with `code`: a held body's head, why there is
    /// no head, or the end of a streamed body. Called on the loop's thread, which is done with the transfer.
    private func finish(_ code: CURLcode, sink: CurlStreamSink, writer: HTTPBodyWriter) {
        // A held body complete is the answer, whatever curl made of the connection after it.
        if sink.heldWhole { return sink.deliverHeld() }
        // A `HEAD`'s head, once the transfer ended well: there is no body to wait for.
        if code == CURLE_OK, sink.deliverHeadOnly() { return }
        let failure: HTTPClientError? =
            switch code {
            case CURLE_OK: nil
            case _ where sink.timedOut: .timedOut
            case CURLE_FILESIZE_EXCEEDED: .responseTooLarge(limit: limit)
            default: HTTPClientError(curl: code, cancelled: cancelled.load(ordering: .acquiring))
            }
        guard sink.delivered else { return sink.fail(failure ?? .transport("the reply was not HTTP")) }
        if let failure { writer.fail(failure) } else { writer.finish() }
    }
}
