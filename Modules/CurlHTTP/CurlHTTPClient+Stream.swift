public import Data
import Foundation

extension CurlHTTPClient {
    /// Sends `request` and returns as soon as the response's status and header fields have arrived, its
    /// body streaming after them on the transfer's own thread: at most 256 KiB of it are held at a time
    /// (the transfer waits while the reader is that far behind, and TCP holds the server back), up to
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
        let handles = handles
        let head = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A thread of its own, as `send` has: the transfer blocks in curl's `poll`, and in the writer
                // while the reader is behind, for as long as the body takes.
                TransferThreads.shared.run {
                    transfer.perform(in: handles, into: writer, deliver: { continuation.resume(returning: $0) })
                }
            }
        } onCancel: {
            transfer.cancel()
        }
        let (status, headers) = try head.get()
        return HTTPStreamedResponse(status: status, headers: headers, body: body)
    }
}
