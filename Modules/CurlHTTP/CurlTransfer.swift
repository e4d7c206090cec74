import CCurl
import Data
import Foundation
import Locking

/// One request: set up on a curl easy handle, performed (blocking) on the calling thread, and stopped
/// early by ``cancel()`` from any thread.
final class CurlTransfer: Sendable {
    private let url: String
    private let request: HTTPRequest
    private let timeoutMilliseconds: Int
    private let limit: Int
    private let cancelled = Locked(false)

    /// libcurl's global state, set up once before the first handle (its own setup is not thread-safe).
    private static let globalSetup: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

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

    /// Performs the transfer and returns the response or why there is none.
    func perform() -> Result<HTTPResponse, HTTPClientError> {
        let sink = CurlResponseSink(limit: limit, isCancelled: { [cancelled] in cancelled.withLock { $0 } })
        let outcome: (code: CURLcode, status: Int)? = withExtendedLifetime(sink) {
            withConfiguredHandle(context: Unmanaged.passUnretained(sink).toOpaque()) { handle in
                let code = curl_easy_perform(handle)
                var status = 0
                _ = hardtack_curl_response_code(handle, &status)
                return (code, status)
            }
        }
        guard let (code, status) = outcome else { return .failure(.transport("the HTTP library could not start")) }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED { return .failure(.responseTooLarge(limit: limit)) }
        guard code == CURLE_OK else { return .failure(HTTPClientError(curl: code, cancelled: sink.isCancelled())) }
        guard status != 0 else { return .failure(.transport("the reply was not HTTP")) }
        return .success(HTTPResponse(status: status, headers: sink.headers, body: sink.body))
    }

    /// Runs `run` on the calling thread with a new easy handle on which every option of the transfer is
    /// set, its callbacks reaching `context` (which must outlive the call); the header list and the body
    /// stay alive until it returns, the handle is cleaned up after. `nil` when libcurl could not start.
    func withConfiguredHandle<T>(context: UnsafeMutableRawPointer, _ run: (UnsafeMutableRawPointer) -> T) -> T? {
        guard Self.globalSetup == CURLE_OK, let handle = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        for field in request.headers { headers = curl_slist_append(headers, "\(field.name): \(field.value)") }
        // No `Expect: 100-continue` round trip before a body.
        headers = curl_slist_append(headers, "Expect:")
        defer { curl_slist_free_all(headers) }
        return request.body.withUnsafeBytes { body in
            configure(handle, headers: headers, body: body, context: context)
            return run(handle)
        }
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
