internal import CMicroHTTPD
import Data
import Epoll
import Foundation

/// The C callbacks libmicrohttpd calls, on the thread of the loop that runs the daemon: one request's
/// life from its request line (`uriLog`) through its body and answer (`access`) to its end (`completed`).
/// Each gets the ``MicroHTTPDaemon`` as its closure argument and the request's context through `con_cls`.
enum MicroHTTPCallbacks {
    /// The request line is read: a context for the request, with its target exactly as sent.
    static let uriLog:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?)
            -> UnsafeMutableRawPointer? = { cls, uri, _ in
                guard let cls else { return nil }
                let daemon = Unmanaged<MicroHTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
                daemon.state.opened()
                let context = MicroHTTPRequestContext(target: uri.map { String(cString: $0) } ?? "/", daemon: daemon)
                // Copied: libmicrohttpd's own parse of the query, which its 0.9 versions fail by hanging, is not needed.
                hardtack_mhd_skip_query_parsing(uri)
                return Unmanaged.passRetained(context).toOpaque()
            }

    /// A connection accepted, or about to be closed: the connection watch has it meanwhile.
    static let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let daemon = Unmanaged<MicroHTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
        if code == hardtack_mhd_connection_started {
            daemon.watch.opened(connection, now: EpollLoop.now())
            daemon.state.connections.opened()
        } else {
            // Counted off only once counted on: the tally cannot drift from the watch.
            if daemon.watch.closed(connection) { daemon.state.connections.closed() }
        }
    }

    /// The request's end, answered or not: the context is let go of, and the time for the connection's next
    /// head begins.
    static let completed: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
        guard let cls else { return }
        let daemon = Unmanaged<MicroHTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
        if let connection { daemon.watch.requestEnded(connection, now: EpollLoop.now()) }
        guard let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let context = Unmanaged<MicroHTTPRequestContext>.fromOpaque(raw).takeRetainedValue()
        // An answer the connection resumed with but libmicrohttpd never took: it closes the connection as it
        // resumes when its read there finds the client's end, though the request was read whole (a client
        // that half-closed after its request). It calls this before it shuts the socket (but when the daemon
        // stops, where the send finds the socket shut and writes nothing), so a whole answer is written to it
        // here; a streamed one's body is let go of.
        switch context.takeAnswer() {
        case .complete(let whole)?:
            if let connection {
                _ = MicroHTTPResponder.writeWhole(whole, to: connection, head: context.isHeadRequest)
            }
        case .streamed(let streamed)?: streamed.body.cancel()
        case nil: break
        }
        daemon.state.closed()
    }

    /// Called after the head, for each chunk of the body, once more when the body is complete, and once
    /// after the connection resumes with the handler's answer.
    static let access: MHD_AccessHandlerCallback = { cls, connection, _, method, version, uploadData, uploadSize, conCls in
        guard let cls, let connection, let conCls, let raw = conCls.pointee, let uploadSize else {
            return MHD_Result.NO
        }
        let daemon = Unmanaged<MicroHTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
        let state = daemon.state
        let context = Unmanaged<MicroHTTPRequestContext>.fromOpaque(raw).takeUnretainedValue()
        /// Answers the request here, without the handler, and tells the server's observer: queued for libmicrohttpd
        /// to write, or, `directly`, written to the socket by the server (libmicrohttpd has too little memory left).
        func refuse(_ response: HTTPResponse, directly: Bool = false) -> MHD_Result {
            state.refused?(method.map { String(cString: $0) } ?? "", context.target, response.status)
            let head = MicroHTTPResponder.isHead(method)
            guard directly else { return MicroHTTPResponder.queue(response, on: connection, head: head) }
            return MicroHTTPResponder.writeDirectly(response, to: connection, head: head)
        }
        if let answer = context.takeAnswer() {
            // An answer whose head would not fit beside its request would be closed without a word.
            guard MicroHTTPResponder.headBytes(of: answer) <= context.answerRoom - 16 else {
                if case .streamed(let streamed) = answer { streamed.body.abort(HTTPBodyStream.headTooLarge) }
                return refuse(MicroHTTPResponder.answerHeadTooLarge)
            }
            return MicroHTTPResponder.queue(answer, on: connection, daemon: daemon, head: context.isHeadRequest)
        }
        // The first call comes with the head alone; the body, if any, follows in chunks, then a last call.
        if context.isFirstCall() {
            // What the request holds of the connection's memory stays held while its answer's head is written
            // there; the count is within a few bytes of libmicrohttpd's own, hence the 16 more. A folded field
            // (-1) leaves nothing that can be counted on.
            var framing = hardtack_mhd_head_span()
            let memory = hardtack_mhd_request_memory(connection, method, &framing)
            let room = memory < 0 ? 0 : state.limits.connectionMemoryBytes - memory
            context.answerRoom = room
            /// A refusal, by libmicrohttpd when it has room to write one.
            func refuseHere(_ response: HTTPResponse) -> MHD_Result {
                refuse(response, directly: room < MicroHTTPResponder.refusalHeadRoom)
            }
            // The same token check the fields' names get, in the pass over them (shim.h).
            guard let method, hardtack_mhd_is_token(method) else {
                return refuseHere(MicroHTTPResponder.invalidMethod)
            }
            let limit = state.limits.requestHeadBytes
            guard context.target.utf8.count <= limit else { return refuseHere(MicroHTTPResponder.targetTooLong(limit)) }
            guard !MicroHTTPResponder.hasInvalidByte(context.target) else {
                return refuseHere(MicroHTTPResponder.invalidTarget)
            }
            guard MicroHTTPResponder.headBytes(of: connection, method: method, target: context.target) <= limit else {
                return refuseHere(MicroHTTPResponder.headTooLarge(limit))
            }
            guard memory >= 0 else { return refuse(MicroHTTPResponder.foldedField, directly: true) }
            guard framing.invalid_names == 0 else { return refuseHere(MicroHTTPResponder.invalidFieldName) }
            guard framing.invalid_values == 0 else { return refuseHere(MicroHTTPResponder.invalidFieldValue) }
            let needsHost = version.map { strcmp($0, "HTTP/1.0") != 0 } ?? true
            guard framing.hosts <= 1, framing.invalid_hosts == 0, framing.hosts == 1 || !needsHost else {
                return refuseHere(MicroHTTPResponder.invalidHost)
            }
            if let fault = MicroHTTPResponder.framingFault(framing, version: version) { return refuseHere(fault) }
            guard room >= state.limits.answerHeadBytes + 16 else {
                return refuseHere(MicroHTTPResponder.headTooCrowded)
            }
            // A body declared longer than the server would read and drop is refused now, while an answer can
            // still be queued (mid-body, libmicrohttpd can only close the connection).
            if let declared = MicroHTTPResponder.contentLength(of: connection),
                declared > state.limits.requestBodyDiscardBytes
            {
                return refuse(MicroHTTPResponder.tooLarge(state.limits.requestBodyBytes))
            }
            return MHD_Result.YES
        }
        if uploadSize.pointee > 0 {
            let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
            uploadSize.pointee = 0
            let limit = state.limits.requestBodyBytes
            if context.append(chunk, limit: limit, discardLimit: state.limits.requestBodyDiscardBytes) {
                return MHD_Result.YES
            }
            // Over even the bytes read and dropped, with no length declared (chunked): libmicrohttpd closes the
            // connection, as it takes no answer mid-body; the log still says 413.
            return refuse(MicroHTTPResponder.tooLarge(limit))
        }
        // Trailer fields take the connection's memory after the head was counted: refused, by the server.
        if hardtack_mhd_has_trailers(connection) { return refuse(MicroHTTPResponder.trailersRefused, directly: true) }
        if context.isRejected { return refuse(MicroHTTPResponder.tooLarge(state.limits.requestBodyBytes)) }
        if state.isDraining { return refuse(MicroHTTPServerState.unavailable) }
        guard let body = context.suspend(connection, head: MicroHTTPResponder.isHead(method)) else {
            return MHD_Result.YES
        }
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: context.target,
            headers: MicroHTTPResponder.headers(of: connection), body: body, received: .now)
        daemon.dispatch(context, request)
        return MHD_Result.YES
    }
}
