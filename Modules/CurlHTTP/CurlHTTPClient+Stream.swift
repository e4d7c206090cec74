public import Data
import Foundation

extension CurlHTTPClient {
    /// Sends `request` and returns as soon as the response's status and header fields have arrived, its
    /// body streaming after them from the event loop's thread (see ``CurlHTTPClient``): at most 256 KiB of it are held at a time
    /// (the transfer pauses while the reader is that far behind, and TCP holds the server back), up to
    /// ``responseSizeLimit`` bytes in all (past it the stream fails). ``timeout`` bounds the wait for the
    /// head and then each wait for more of the body, not the whole transfer. Letting go of the body, or
    /// cancelling it, stops the transfer and closes its connection.
    /// - Throws: ``HTTPClientError/cannotConnect(_:)``, ``HTTPClientError/timedOut``,
    ///   ``HTTPClientError/responseTooLarge(limit:)`` (a `Content-Length` over the limit) or
    ///   ``HTTPClientError/transport(_:)``, when no head arrives.
    public func stream(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPStreamedResponse {
        let transfer = CurlStreamTransfer(
            url: try url(for: request), request: request, timeoutMilliseconds: max(1, Int(timeout * 1000)),
            limit: responseSizeLimit)
        let (body, writer) = HTTPBodyStream.pipe(limit: responseSizeLimit)
        let (handles, multi) = (handles, multi())
        let head = await withTaskCancellationHandler {
            // Resumed exactly once: the sink hands over a head or why there is none once (`delivered`).
            await withUnsafeContinuation { continuation in
                // On an event loop, with other transfers: none holds a thread of its own.
                transfer.start(
                    in: handles, on: multi, into: writer, deliver: { continuation.resume(returning: $0) })
            }
        } onCancel: {
            transfer.cancel()
        }
        let (status, headers) = try head.get()
        return HTTPStreamedResponse(status: status, headers: headers, body: body)
    }
}
