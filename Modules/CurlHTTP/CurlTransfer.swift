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
        guard let pooled = pool.take() else { return .failure(.transport("the HTTP library could not start")) }
        let result = perform(on: pooled.raw)
        pool.give(pooled, reusable: (try? result.get()) != nil)
        return result
    }

    /// Performs the transfer on `handle`.
    private func perform(on handle: UnsafeMutableRawPointer) -> Result<HTTPResponse, HTTPClientError> {
        let sink = CurlResponseSink(limit: limit, isCancelled: { [cancelled] in cancelled.withLock { $0 } })
        var headers: UnsafeMutablePointer<curl_slist>?
        for field in request.headers { headers = curl_slist_append(headers, "\(field.name): \(field.value)") }
        // No `Expect: 100-continue` round trip before a body.
        headers = curl_slist_append(headers, "Expect:")
        defer { curl_slist_free_all(headers) }
        let code: CURLcode = request.body.withUnsafeBytes { body in
            withExtendedLifetime(sink) {
                let context = Unmanaged.passUnretained(sink).toOpaque()
                configure(handle, headers: headers, body: body, context: context)
                return curl_easy_perform(handle)
            }
        }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED { return .failure(.responseTooLarge(limit: limit)) }
        guard code == CURLE_OK else { return .failure(HTTPClientError(curl: code, cancelled: sink.isCancelled())) }
        var status = 0
        _ = hardtack_curl_response_code(handle, &status)
        guard status != 0 else { return .failure(.transport("the reply was not HTTP")) }
        return .success(HTTPResponse(status: status, headers: sink.headers, body: sink.body))
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
