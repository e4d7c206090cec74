import Data
import Domain
import Foundation

/// The routes: a single-page app's API calls forwarded with the session's access token.
extension Gateway {
    /// Fields never forwarded upstream: the browser's cookies and credentials, and the hop-by-hop fields
    /// (RFC 9110 §7.6.1), which describe this connection only.
    private static let droppedRequestFields = HTTPFieldNameSet([
        "cookie", "authorization", "host", "content-length", "connection", "keep-alive", "proxy-authorization",
        "proxy-authenticate", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect", "x-csrf",
    ])
    /// Fields never passed back to the browser, whatever the method: hop-by-hop ones, and cookies, which an
    /// upstream must not set on the gateway's origin (they would sit beside, or shadow, the session cookie).
    private static let droppedAnswerFieldNames = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-connection", "te", "trailer", "transfer-encoding",
        "upgrade", "set-cookie",
    ]
    /// Those, and `Content-Length`, which the server writes from the body it sends.
    private static let droppedResponseFields = HTTPFieldNameSet(droppedAnswerFieldNames + ["content-length"])
    /// Those alone, for the answer to a `HEAD`, which keeps its `Content-Length`: the length its `GET` would
    /// have (RFC 9110 §9.3.2), which the server writes with no body.
    private static let droppedHeadResponseFields = HTTPFieldNameSet(droppedAnswerFieldNames)

    /// The most bytes of an upstream answer's fields passed back (names, values and their separators): a
    /// larger head is 502, as nginx answers one over its `proxy_buffer_size` (4 KiB). libmicrohttpd writes
    /// an answer's head into the memory that also holds its request's head, and closes a connection whose
    /// answer head does not fit without a word; the server keeps room for a head of
    /// `MicroHTTPServerLimits.answerHeadBytes` (4 KiB and 256 bytes) beside every request it admits, which
    /// these fields, the status line and the framing fields fit (docs/gateway.md, "Bounds and faults").
    static let upstreamHeadBytes = 4096

    /// Methods never forwarded: TRACE (and its old twin TRACK), which echo the request and its bearer back to
    /// the caller, and CONNECT, which asks for a tunnel.
    private static let unforwardedMethods = ["TRACE", "TRACK", "CONNECT"]

    /// What one upstream call gave: its head, with its body still arriving, or why there is none.
    enum UpstreamOutcome: Sendable {
        case answered(HTTPStreamedResponse)
        case failed(HTTPClientError)
    }

    /// The most of a 401's body read (and dropped) before the retry.
    static let refusedBodyBytes = 1 << 20

    /// A call on `route`: with `X-CSRF: 1` and a session, forwarded with `Authorization: Bearer`, the token
    /// refreshed first when it is expired or about to be, and once more after an upstream 401 (then retried
    /// once). Without the header 403, without a session 401; nothing reaches the upstream then. The
    /// upstream's answer streams to the browser as it arrives (a 401's body is read and dropped); one cut
    /// short is logged. A small one of known length arrives whole, and is sent whole.
    func forward(
        _ request: HTTPRequest, through route: GatewayRoute, client: any HTTPClient, started: ContinuousClock.Instant
    ) async -> HTTPReply {
        // A TRACE would echo the request back, the bearer the gateway adds with it; a CONNECT asks for a tunnel.
        if Self.unforwardedMethods.contains(where: { request.method.caseInsensitiveEquals($0) }) {
            return .complete(Self.methodNotAllowed("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"))
        }
        guard Self.hasAntiForgeryHeader(request) else { return .complete(Self.missingAntiForgeryHeader) }
        guard let target = route.upstreamTarget(for: request.path) else {
            return .complete(GatewayReply.error(400, "invalid_path", "the path climbs out of the route's upstream"))
        }
        guard let cookie = sessionCookie(request) else { return .complete(Self.notSignedIn(clearing: nil)) }
        let (use, ended) = await admit(cookie)
        if let ended { return .complete(ended) }
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        let connectionFields = Self.connectionOptions(request.headers, besides: Self.droppedRequestFields)
        for field in request.headers {
            if Self.isDropped(field.name, Self.droppedRequestFields, or: connectionFields) { continue }
            headers.add(field.name, field.value)
        }
        let outgoing = HTTPRequest(method: request.method, path: target, headers: headers, body: request.body)
        let metrics = metrics
        let outcome: UpstreamOutcome
        do throws(AuthenticationError) {
            let call = sessions.authorizedCall(for: cookie, received: request.received)
            outcome = try await call { token async throws(AuthenticationError) -> AuthorizedOutcome<UpstreamOutcome> in
                var call = outgoing
                call.headers["Authorization"] = BearerAuthorization.headerValue(token)
                let started = ContinuousClock.now
                // Every call is timed, a failed one too (an upstream that times out is the latency most
                // worth seeing).
                func timed() {
                    let elapsed = ContinuousClock.now - started
                    metrics.upstream(
                        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                }
                do throws(HTTPClientError) {
                    let response = try await client.stream(call)
                    timed()
                    guard response.status == 401 else { return .success(.answered(response)) }
                    _ = try? await response.body.collect(upTo: Self.refusedBodyBytes)
                    return .unauthorized
                } catch {
                    timed()
                    return .success(.failed(error))
                }
            }
        } catch {
            switch error {
            case .notSignedIn:
                return .complete(Self.notSignedIn(clearing: configuration.cookieName))
            case .sessionExpired, .refreshInterrupted:
                metrics.sessionEnded()
                return .complete(
                    GatewayReply.error(
                        401, "session_ended", "the session has ended: sign in again",
                        headers: [GatewayReply.clearCookie(configuration.cookieName)]))
            case .unauthorized:
                return .complete(
                    GatewayReply.error(401, "upstream_refused", "the API refused even a freshly refreshed token"))
            default:
                return .complete(Self.failure(error))
            }
        }
        if let use { await activity.record(cookie, after: use) }
        switch outcome {
        case .answered(let response):
            // A status no browser can be given: one past 599, which the server would write as 500, or none that
            // could be read (0). (A 1xx as the last answer curl itself fails, as it does a 101 it did not ask for.)
            guard (200...599).contains(response.status) else {
                response.body.cancel()
                return .complete(
                    GatewayReply.error(
                        502, "upstream_invalid_status",
                        "the API answered with status \(response.status), which is not one to pass on"))
            }
            var passed = HTTPHeaders()
            passed.reserveCapacity(response.headers.count)
            let isHead = request.method == "HEAD"
            let dropped = isHead ? Self.droppedHeadResponseFields : Self.droppedResponseFields
            let hopByHop = Self.connectionOptions(response.headers, besides: dropped)
            var headBytes = 0
            for field in response.headers {
                if Self.isDropped(field.name, dropped, or: hopByHop) { continue }
                headBytes += field.name.utf8.count + field.value.utf8.count + 4
                passed.add(field.name, field.value)
            }
            guard headBytes <= Self.upstreamHeadBytes else {
                response.body.cancel()
                return .complete(
                    GatewayReply.error(
                        502, "upstream_head_too_large",
                        "the API's answer head is over \(Self.upstreamHeadBytes) bytes of fields"))
            }
            // A HEAD's length is passed on when it is one number and frames nothing else (a Transfer-Encoding
            // beside it wins, RFC 9112 §6.3); without one, its answer goes as a stream of no bytes, which the
            // server frames as the GET's would have been (chunked), not as an empty body.
            if isHead, response.headers["Transfer-Encoding"] != nil || passed.contentLength == nil {
                passed["Content-Length"] = nil
                return .streamed(HTTPStreamedResponse(status: response.status, headers: passed, body: response.body))
            }
            // A small answer that arrived whole goes out whole, with its length; any other streams.
            if let whole = response.body.takeWhole() {
                return .complete(HTTPResponse(status: response.status, headers: passed, body: whole))
            }
            watch(response.body, of: request, on: route, status: response.status, started: started)
            return .streamed(HTTPStreamedResponse(status: response.status, headers: passed, body: response.body))
        case .failed(.timedOut):
            return .complete(GatewayReply.error(504, "upstream_timeout", "the API did not answer in time"))
        case .failed(.responseTooLarge(let limit)):
            return .complete(GatewayReply.error(502, "upstream_too_large", "the API's answer is over \(limit) bytes"))
        case .failed:
            return .complete(GatewayReply.error(502, "upstream_unreachable", "the API could not be reached"))
        }
    }

    /// The fields every `Connection` field of `headers` names (RFC 9110 §7.6.1): hop-by-hop, for this
    /// connection only, never passed on. As written; compared in any case. Those `dropped` holds already
    /// are left out: the usual `keep-alive` then makes no list at all.
    static func connectionOptions(_ headers: HTTPHeaders, besides dropped: HTTPFieldNameSet) -> [String] {
        var names: [String] = []
        for field in headers where field.name.caseInsensitiveEquals("connection") {
            var rest = Substring(field.value)
            while !rest.isEmpty {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                let name = String(rest[..<comma].trimmingOptionalWhitespace())
                if !name.isEmpty, !dropped.contains(name) { names.append(name) }
                rest = comma == rest.endIndex ? "" : rest[rest.index(after: comma)...]
            }
        }
        return names
    }

    /// Whether the field `name` is one of `dropped` or of `named`, in any case.
    private static func isDropped(_ name: String, _ dropped: HTTPFieldNameSet, or named: [String]) -> Bool {
        dropped.contains(name) || named.contains { name.caseInsensitiveEquals($0) }
    }

    /// Logs a line, and counts it, when `body` ends early: the upstream lost, late or over the limit, the
    /// browser gone, or the gateway stopping.
    private func watch(
        _ body: HTTPBodyStream, of request: HTTPRequest, on route: GatewayRoute, status: Int,
        started: ContinuousClock.Instant
    ) {
        let (log, metrics) = (dependencies.log, metrics)
        body.whenEnded { ending, bytes in
            let cut: String
            switch ending {
            // Answered 500 in its place by the server, which logs that: no cut to tell.
            case .complete, .failed(HTTPBodyStream.headTooLarge): return
            case .cancelled: cut = "browser_gone"
            case .failed(.timedOut): cut = "upstream_timeout"
            case .failed(.responseTooLarge): cut = "upstream_too_large"
            case .failed(HTTPBodyStream.stopped): cut = "gateway_stopping"
            case .failed: cut = "upstream_lost"
            }
            metrics.streamCut()
            var line = RequestLogLine(
                request: request, route: route.prefix, status: status, duration: ContinuousClock.now - started)
            line.cut = (cut, bytes)
            log(line.json)
        }
    }
}
