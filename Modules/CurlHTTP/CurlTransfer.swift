import CCurl
import Data
import Foundation
import Locking

/// One request: set up on a curl easy handle of a ``CurlHandlePool``, performed (blocking) on the calling
/// thread, and stopped early by ``cancel()`` from any thread.
final class CurlTransfer: Sendable {
    private let url: String
    private let request: HTTPRequest
    private let timeoutMilliseconds: Int
    private let limit: Int
    private let cancelled = Locked(false)

    /// A transfer of `request` to `url`, accepting at most `limit` body bytes.
    init(url: String, request: HTTPRequest, timeoutMilliseconds: Int, limit: Int) {
        self.url = url
        self.request = request
        self.timeoutMilliseconds = timeoutMilliseconds
        self.limit = limit
    }

    /// Stops the transfer at curl's next progress call (within a second, also while it waits).
    func cancel() {
        cancelled.withLock { $0 = true }
    }

    /// Performs the transfer on a handle of `pool` and returns the response or why there is none. The
    /// handle goes back to the pool, its connection kept for the next request, only after a transfer that
    /// completed.
    func perform(in pool: CurlHandlePool) -> Result<HTTPResponse, HTTPClientError> {
        let sink = CurlResponseSink(limit: limit, isCancelled: { [cancelled] in cancelled.withLock { $0 } })
        let outcome: (code: CURLcode, status: Int)? = withExtendedLifetime(sink) {
            withConfiguredHandle(from: pool, context: Unmanaged.passUnretained(sink).toOpaque()) { handle in
                let code = curl_easy_perform(handle)
                var status = 0
                _ = hardtack_curl_response_code(handle, &status)
                return ((code, status), code == CURLE_OK && status != 0 && !sink.overflowed)
            }
        }
        guard let (code, status) = outcome else { return .failure(.transport("the HTTP library could not start")) }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED { return .failure(.responseTooLarge(limit: limit)) }
        guard code == CURLE_OK else { return .failure(HTTPClientError(curl: code, cancelled: sink.isCancelled())) }
        guard status != 0 else { return .failure(.transport("the reply was not HTTP")) }
        return .success(HTTPResponse(status: status, headers: sink.headers, body: sink.body))
    }

    /// Runs `run` on the calling thread with an easy handle of `pool` on which every option of the
    /// transfer is set, its callbacks reaching `context` (which must outlive the call); the header list and
    /// the body stay alive until it returns. The handle goes back to `pool` (reset, its connection kept)
    /// when `run` says the transfer completed, and is cleaned up otherwise, its connection closed. `nil`
    /// when libcurl could not start.
    func withConfiguredHandle<T>(
        from pool: CurlHandlePool, context: UnsafeMutableRawPointer,
        _ run: (UnsafeMutableRawPointer) -> (result: T, reusable: Bool)
    ) -> T? {
        guard let pooled = pool.take() else { return nil }
        var headers: UnsafeMutablePointer<curl_slist>?
        for field in request.headers { headers = curl_slist_append(headers, "\(field.name): \(field.value)") }
        // No `Expect: 100-continue` round trip before a body.
        headers = curl_slist_append(headers, "Expect:")
        defer { curl_slist_free_all(headers) }
        let (result, reusable) = request.body.withUnsafeBytes { body in
            configure(pooled.raw, headers: headers, body: body, context: context)
            return run(pooled.raw)
        }
        // Reset (in the pool) or cleaned up before the header list and the body it points at go.
        pool.give(pooled, reusable: reusable)
        return result
    }

    /// Sets every option of the transfer on `handle`; `body` outlives the transfer.
    private func configure(
        _ handle: UnsafeMutableRawPointer, headers: UnsafeMutablePointer<curl_slist>?, body: UnsafeRawBufferPointer,
        context: UnsafeMutableRawPointer
    ) {
        _ = hardtack_curl_set_pointer(handle, CURLOPT_URL, url)
        _ = hardtack_curl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = hardtack_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        // Signals would interrupt other threads' work; with threads curl must not use them for timeouts.
        _ = hardtack_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = hardtack_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        _ = hardtack_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMilliseconds)
        _ = hardtack_curl_set_size(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit))
        _ = hardtack_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headers)
        switch request.method {
        case "GET" where body.isEmpty: _ = hardtack_curl_set_long(handle, CURLOPT_HTTPGET, 1)
        case "POST": _ = hardtack_curl_set_long(handle, CURLOPT_POST, 1)
        default: _ = hardtack_curl_set_pointer(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if !body.isEmpty || request.method == "POST" {
            _ = hardtack_curl_set_size(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            _ = hardtack_curl_set_pointer(handle, CURLOPT_POSTFIELDS, body.baseAddress ?? UnsafeRawPointer(bitPattern: 1))
        }
        _ = hardtack_curl_set_write(handle, CURLOPT_WRITEFUNCTION, CurlResponseSink.receiveBody)
        _ = hardtack_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = hardtack_curl_set_write(handle, CURLOPT_HEADERFUNCTION, CurlResponseSink.receiveHeader)
        _ = hardtack_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
        _ = hardtack_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = hardtack_curl_set_progress(handle, CurlResponseSink.progress)
        _ = hardtack_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)
    }
}
