import CCurl
import Data
import Foundation
import Synchronization

/// One request: set up on a curl easy handle of a ``CurlHandlePool``, run by a ``CurlMulti``, and
/// stopped early by ``cancel()`` from any thread.
final class CurlTransfer: Sendable {
    private let url: String
    private let request: HTTPRequest
    private let timeoutMilliseconds: Int
    private let limit: Int
    private let cancelled = Atomic(false)
    /// The schemes a transfer may use, as curl reads them (`CURLOPT_PROTOCOLS_STR`).
    private static let protocols: StaticString = "http,https"

    /// A transfer of `request` to `url`, accepting at most `limit` body bytes.
    init(url: String, request: HTTPRequest, timeoutMilliseconds: Int, limit: Int) {
        self.url = url
        self.request = request
        self.timeoutMilliseconds = timeoutMilliseconds
        self.limit = limit
    }

    /// Stops the transfer within a second (the multi's next check), also while it waits.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// Starts the transfer on `multi` with a handle of `pool`; `finished` gets the response or why there is
    /// none, on the multi's loop. The handle goes back to the pool (and its connection stays in the multi's
    /// cache for the next request) only after a transfer that completed.
    func start(
        in pool: CurlHandlePool, on multi: CurlMulti,
        finished: @escaping (Result<HTTPResponse, HTTPClientError>) -> Void
    ) {
        let sink = CurlResponseSink(limit: limit, isCancelled: { [self] in cancelled.load(ordering: .acquiring) })
        // The sink outlives the transfer: the multi holds it in `done` until it is over, and curl's callbacks
        // reach it through this pointer on the loop's thread only.
        guard
            let configured = configuredHandle(
                from: pool, context: Unmanaged.passUnretained(sink).toOpaque(), closing: multi.closeSocketContext)
        else {
            return finished(.failure(.transport("the HTTP library could not start")))
        }
        let done = { [self] (code: CURLcode) in
            var status = 0
            _ = hardtack_curl_response_code(configured.raw, &status)
            release(configured, to: pool, reusable: code == CURLE_OK && status != 0 && !sink.overflowed)
            if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED {
                return finished(.failure(.responseTooLarge(limit: limit)))
            }
            guard code == CURLE_OK else {
                return finished(.failure(HTTPClientError(curl: code, cancelled: sink.isCancelled())))
            }
            guard status != 0 else { return finished(.failure(.transport("the reply was not HTTP"))) }
            finished(.success(HTTPResponse(status: status, headers: sink.headers, body: sink.body)))
        }
        let started = multi.start(
            configured.pooled, as: multi.transferID(for: configured.pooled), stopIf: { sink.isCancelled() }, finished: done)
        if !started {
            release(configured, to: pool, reusable: false)
            finished(.failure(.transport("the HTTP library could not start")))
        }
    }

    /// An easy handle of `pool` on which every option of the transfer is set (the body copied in), its
    /// callbacks reaching `context`, which must outlive the transfer, and the sockets it closes going
    /// through the multi whose ``CurlMulti/closeSocketContext`` is `closing`; to be given back with
    /// ``release(_:to:reusable:)`` once it is over. `nil` when libcurl could not start.
    func configuredHandle(
        from pool: CurlHandlePool, context: UnsafeMutableRawPointer, closing: UnsafeMutableRawPointer
    ) -> CurlConfiguredHandle? {
        guard let pooled = pool.take() else { return nil }
        var headers: UnsafeMutablePointer<curl_slist>?
        // Out of memory: no request is sent with some of its fields (its bearer, say) missing.
        guard Self.makeHeaderList(for: request, into: &headers) else {
            curl_slist_free_all(headers)
            pool.give(pooled, reusable: true)
            return nil
        }
        request.body.withUnsafeBytes { body in configure(pooled.raw, headers: headers, body: body, context: context) }
        _ = hardtack_curl_set_close_socket(pooled.raw, CurlMulti.closeSocket, closing)
        // A client keeping no connections closes each one after its transfer.
        if pool.capacity == 0 { _ = hardtack_curl_set_long(pooled.raw, CURLOPT_FORBID_REUSE, 1) }
        return CurlConfiguredHandle(pooled: pooled, headers: headers)
    }

    /// Appends to `list` a line for each of `request`'s fields, and an empty `Expect:` when it has a body (no
    /// `100-continue` round trip before it: curl asks for one only with a body); `false` when curl could not
    /// append one (out of memory), `list` then holding those appended so far, for the caller to free.
    private static func makeHeaderList(
        for request: HTTPRequest, into list: inout UnsafeMutablePointer<curl_slist>?
    ) -> Bool {
        for field in request.headers {
            guard let longer = append(field, to: list) else { return false }
            list = longer
        }
        if !request.body.isEmpty {
            guard let longer = curl_slist_append(list, "Expect:") else { return false }
            list = longer
        }
        return true
    }

    /// `list` with the line of `field` appended (curl copies it), or `nil` when curl could not (the list is
    /// then still the caller's to free): `Name: value`, or `Name;` for an empty value, which is how curl is
    /// told to send `Name:` rather than drop the field. Written into scratch space on the stack, not into a
    /// string made for it (a line over 1 KiB takes a heap block instead).
    private static func append(
        _ field: (name: String, value: String), to list: UnsafeMutablePointer<curl_slist>?
    ) -> UnsafeMutablePointer<curl_slist>? {
        var (name, value) = field
        return name.withUTF8 { name in
            value.withUTF8 { value in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count + value.count + 3) { line in
                    var end = line.initialize(fromContentsOf: name)
                    if value.isEmpty {
                        end = line[end...].initialize(fromContentsOf: ";".utf8)
                    } else {
                        end = line[end...].initialize(fromContentsOf: ": ".utf8)
                        end = line[end...].initialize(fromContentsOf: value)
                    }
                    line[end] = 0
                    return line.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) }
                }
            }
        }
    }

    /// Gives a handle whose transfer is over back to `pool` (reset) when `reusable`, or cleans it up; then
    /// frees its header list. (The connection is the multi's: curl keeps it for reuse after a transfer that
    /// completed, and closes it after one that failed.)
    func release(_ configured: CurlConfiguredHandle, to pool: CurlHandlePool, reusable: Bool) {
        // Reset (in the pool) or cleaned up before the header list it points at goes.
        pool.give(configured.pooled, reusable: reusable)
        curl_slist_free_all(configured.headers)
    }

    /// Sets every option of the transfer on `handle`; `body` is copied in.
    private func configure(
        _ handle: UnsafeMutableRawPointer, headers: UnsafeMutablePointer<curl_slist>?, body: UnsafeRawBufferPointer,
        context: UnsafeMutableRawPointer
    ) {
        _ = hardtack_curl_set_pointer(handle, CURLOPT_URL, url)
        // A static string: the bytes in the binary, not a short string copied to the heap for each call.
        _ = hardtack_curl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, UnsafeRawPointer(Self.protocols.utf8Start))
        _ = hardtack_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        // Signals would interrupt other threads' work; with threads curl must not use them for timeouts.
        _ = hardtack_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = hardtack_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        _ = hardtack_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMilliseconds)
        // A HEAD's length is the GET's and comes with no body: no limit to hold it to.
        if request.method != "HEAD" { _ = hardtack_curl_set_size(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)) }
        _ = hardtack_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headers)
        switch request.method {
        case "GET" where body.isEmpty: _ = hardtack_curl_set_long(handle, CURLOPT_HTTPGET, 1)
        case "POST": _ = hardtack_curl_set_long(handle, CURLOPT_POST, 1)
        default: _ = hardtack_curl_set_pointer(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if !body.isEmpty || request.method == "POST" {
            _ = hardtack_curl_set_size(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            if let bytes = body.baseAddress {
                _ = hardtack_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, bytes)
            } else {
                _ = hardtack_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, "")
            }
        }
        // A HEAD's answer has no body, whatever its length says (a `GET`'s): without this curl waits for one.
        // Set last, it also leaves out a body a HEAD came with. Its connection is not kept: an upstream that
        // sends a body after all would have it read as the head of the next answer on that connection (curl
        // drops only what arrives with the head), which may be another caller's.
        if request.method == "HEAD" {
            _ = hardtack_curl_set_long(handle, CURLOPT_NOBODY, 1)
            _ = hardtack_curl_set_long(handle, CURLOPT_FORBID_REUSE, 1)
        }
        _ = hardtack_curl_set_write(handle, CURLOPT_WRITEFUNCTION, CurlResponseSink.receiveBody)
        _ = hardtack_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = hardtack_curl_set_write(handle, CURLOPT_HEADERFUNCTION, CurlResponseSink.receiveHeader)
        _ = hardtack_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
    }
}
