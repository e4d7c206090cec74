internal import CMicroHTTPD
import Data
import Foundation
import Locking

/// One request on its way through the server: made when libmicrohttpd has read the request line (with
/// the target as sent), filled with the body as it arrives, handed to the handler once complete while
/// the connection is suspended, and given the answer to write once it resumes.
///
/// Safety (`@unchecked Sendable`): every mutable field is read and written under `lock` only. The
/// connection pointer is used only on the daemon's loop inside libmicrohttpd's callbacks, and by
/// ``resume(with:)`` to resume the connection while it is suspended, which libmicrohttpd allows from any
/// thread (the daemon's loop is then asked to run it); `resumed` makes that happen once, and never after
/// the server gave the connection up.
final class MicroHTTPRequestContext: @unchecked Sendable {
    /// The request target as sent: path and query, percent-encoded.
    let target: String
    /// The daemon the request came to.
    let daemon: MicroHTTPDaemon
    private let lock = ConditionLock()
    private var body = Data()
    private var received = 0
    private var rejected = false
    private var headSeen = false
    private var started = false
    private var answer: HTTPReply?
    private var suspended: OpaquePointer?
    private var resumed = false
    private var room = 0
    private var isHead = false

    init(target: String, daemon: MicroHTTPDaemon) {
        self.target = target
        self.daemon = daemon
    }

    /// Whether this is the first call for the request (its head is read; the body, if any, follows), and
    /// notes that it happened.
    func isFirstCall() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        defer { headSeen = true }
        return !headSeen
    }

    /// The bytes of its connection's memory libmicrohttpd will have left for the answer's head, as counted
    /// when the head was read.
    var answerRoom: Int {
        get {
            lock.lock()
            defer { lock.unlock() }
            return room
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            room = newValue
        }
    }

    /// Appends a chunk of the body. Once the body is over `limit` the request is refused and later chunks
    /// are read and dropped, so that the client, still sending, reads the refusal rather than a reset
    /// connection; `false` once even the dropped bytes are over `discardLimit` (the connection is then
    /// closed with the refusal).
    func append(_ chunk: UnsafeRawBufferPointer, limit: Int, discardLimit: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        received += chunk.count
        if !rejected, received > limit {
            rejected = true
            body = Data()
        }
        if rejected { return received <= discardLimit }
        body.append(contentsOf: chunk)
        return true
    }

    /// Whether the body went over its limit.
    var isRejected: Bool {
        lock.lock()
        defer { lock.unlock() }
        return rejected
    }

    /// Suspends `connection` and hands the request over, once: its body, or `nil` when it was handed
    /// over already. Called by libmicrohttpd's thread inside the access callback.
    func suspend(_ connection: OpaquePointer, head: Bool) -> Data? {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { return nil }
        started = true
        isHead = head
        suspended = connection
        MHD_suspend_connection(connection)
        return body
    }

    /// Sets the answer and resumes the connection so it is written; `false` (nothing done) when the
    /// connection was resumed already, by the server giving up on it.
    @discardableResult
    func resume(with response: HTTPReply) -> Bool {
        lock.lock()
        guard !resumed, let connection = suspended else {
            lock.unlock()
            return false
        }
        resumed = true
        answer = response
        MHD_resume_connection(connection)
        lock.unlock()
        daemon.needsRun()
        return true
    }

    /// The answer, once the handler gave it (taken once).
    func takeAnswer() -> HTTPReply? {
        lock.lock()
        defer { lock.unlock() }
        defer { answer = nil }
        return answer
    }

    /// Whether the request was a `HEAD` request (known once it was handed over).
    var isHeadRequest: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isHead
    }
}
