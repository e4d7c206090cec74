import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The upstream behind the gateway in the hostile fuzz: an HTTP/1.1 server on 127.0.0.1 that keeps every
/// request's head exactly as it arrived, reads its body (by `Content-Length` or chunked, as RFC 9112 §6 frames
/// it, and no other way), and answers `200 {"ok":true}` with `X-Upstream: 1`, keeping the connection (or, asked
/// with `X-Fuzz-Answer: KIND`, gives ``HostileAnswer`` `KIND` and closes it). It reads
/// strictly: a head it cannot frame is kept with the reason, and its connection closed; that is a finding
/// about what the gateway sent, not a fault of the fuzz.
final class RecordingUpstream: Sendable {
    /// One request as it arrived.
    struct Received: Sendable {
        /// The head, its last blank line included.
        let head: [UInt8]
        /// The body's length, once read.
        let bodyBytes: Int
        /// Why the request could not be read, when it could not.
        let fault: String?
        /// The ``HostileAnswer`` it was given, if it asked for one.
        var answered: Int? = nil
    }

    /// The port it listens on.
    let port: UInt16
    private let listener: Int32
    private let received = Mutex<[Received]>([])
    /// Whether the listener is open: only the accepting thread closes it, and ``stop()`` shuts it down only
    /// while it is, so that a descriptor number used again elsewhere is never touched.
    private let listening = Mutex(true)

    /// Starts listening on a free port of 127.0.0.1, a thread accepting and one a connection.
    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ChildProcess.SpawnError(description: "socket: \(errnoText())") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 128) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw ChildProcess.SpawnError(description: "the recording upstream cannot listen: \(errnoText())")
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    /// Every request received so far.
    var requests: [Received] { received.withLock { $0 } }

    /// Stops accepting, which ends the accepting thread (connections open now end when their peer closes them,
    /// or after 30 s of silence).
    func stop() {
        listening.withLock { open in
            if open { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    /// Accepts connections until ``stop()`` (or an error no retry mends), a thread for each; then closes the
    /// listener.
    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                let error = errno
                if error == EINTR || error == ECONNABORTED { continue }
                // Out of descriptors for a moment: the connections' threads give theirs back.
                if error == EMFILE || error == ENFILE {
                    usleep(10_000)
                    continue
                }
                listening.withLock { open in
                    close(listener)
                    open = false
                }
                return
            }
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            Thread { [self] in serve(connection) }.start()
        }
    }

    /// Reads requests from `connection` and answers each, until the peer closes it or a request cannot be read.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var reader = SocketBytes(socket: connection)
        while true {
            guard let head = reader.head(limit: 64 << 10) else {
                if !reader.buffered.isEmpty || reader.overflowed {
                    record(
                        Received(head: reader.buffered, bodyBytes: 0, fault: "a head cut short or over 64 KiB"))
                }
                return
            }
            let framing = UpstreamHeadCheck.framing(of: head)
            var bodyBytes = 0
            switch framing {
            case .none: break
            case .length(let count):
                guard reader.take(count) != nil else {
                    return record(Received(head: head, bodyBytes: 0, fault: "a body shorter than its Content-Length"))
                }
                bodyBytes = count
            case .chunked:
                guard let count = reader.chunkedBody() else {
                    return record(Received(head: head, bodyBytes: 0, fault: "a chunked body that does not parse"))
                }
                bodyBytes = count
            case .invalid(let reason):
                return record(Received(head: head, bodyBytes: 0, fault: reason))
            }
            let kind = UpstreamHeadCheck.field("x-fuzz-answer", in: head).flatMap { Int($0) }.flatMap {
                $0 >= 0 ? $0 : nil
            }
            record(Received(head: head, bodyBytes: bodyBytes, fault: nil, answered: kind))
            let isHead = head.starts(with: Array("HEAD ".utf8))
            // An answer gone wrong, when the request asks for one; the connection ends with it.
            if let kind {
                let bytes = HostileAnswer.bytes(kind, isHead: isHead)
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return
            }
            let answer =
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Upstream: 1\r\nContent-Length: 11\r\n\r\n"
                + (isHead ? "" : #"{"ok":true}"#)
            let bytes = Array(answer.utf8)
            guard
                bytes.withUnsafeBytes({ send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                    == bytes.count
            else { return }
        }
    }

    /// Keeps `request`.
    private func record(_ request: Received) {
        received.withLock { $0.append(request) }
    }
}
