internal import CMicroHTTPD
import Data
import Foundation

extension MicroHTTPResponder {
    /// Queues `reply` on `connection`: a complete body with its length (one declared for the answer to a
    /// `HEAD`, `head`), a streamed one as it arrives (chunked, or to the connection's close for HTTP/1.0).
    static func queue(_ reply: HTTPReply, on connection: OpaquePointer, daemon: MicroHTTPDaemon, head: Bool)
        -> MHD_Result
    {
        switch reply {
        case .complete(let response): return queue(response, on: connection, head: head)
        case .streamed(let response): return queue(response, on: connection, daemon: daemon)
        }
    }

    /// Queues a streamed response: its fields filtered as ``queue(_:on:)`` does, its body read by a
    /// ``MicroHTTPStreamReader`` that the response holds until libmicrohttpd frees it.
    private static func queue(
        _ response: HTTPStreamedResponse, on connection: OpaquePointer, daemon: MicroHTTPDaemon
    ) -> MHD_Result {
        let reader = MicroHTTPStreamReader(stream: response.body, connection: connection, daemon: daemon)
        // The response holds this reference from here until its free callback releases it.
        let context = Unmanaged.passRetained(reader).toOpaque()
        guard
            let made = MHD_create_response_from_callback(
                hardtack_mhd_size_unknown, MicroHTTPStreamReader.blockSize, MicroHTTPStreamReader.read, context,
                MicroHTTPStreamReader.free)
        else {
            Unmanaged<MicroHTTPStreamReader>.fromOpaque(context).release()
            response.body.cancel()
            return MHD_Result.NO
        }
        // Known to the state until freed, so that a stopping server can end it.
        daemon.state.track(reader)
        defer { MHD_destroy_response(made) }
        add(response.headers, to: made)
        return MHD_queue_response(connection, code(response.status), made)
    }
}
