internal import CLibPQ
import Foundation

/// A cancel request for a connection's running query, sent from a thread of its own so that the
/// caller's wait for it is bounded: libpq 15's `PQcancel` opens a new connection and blocks with no
/// timeout of its own.
///
/// `@unchecked Sendable` is safe: the `PGcancel` is made on the caller's thread before the sending
/// thread starts, and from then on used and freed by that thread alone (libpq documents `PQcancel`
/// as safe to call from any thread, independently of the `PGconn`); `failure` is written by the
/// sending thread before it signals `done`, and read by the caller only after `done` was signalled.
final class PostgreSQLCancelRequest: @unchecked Sendable {
    private let cancel: OpaquePointer
    private let done = DispatchSemaphore(value: 0)
    private var failure: String?

    /// Prepares a cancel request for `connection`'s current query; `nil` when libpq cannot.
    init?(for connection: OpaquePointer) {
        guard let cancel = PQgetCancel(connection) else { return nil }
        self.cancel = cancel
    }

    /// Sends the request and waits for the server to take it until `deadline`. Returns `nil` when it
    /// was delivered, or why not in words. A request still under way at the deadline finishes (or
    /// fails) on its own thread, which frees it.
    func send(waitingUntil deadline: ContinuousClock.Instant) -> String? {
        Thread.detachNewThread { [self] in
            var buffer = [CChar](repeating: 0, count: 256)
            if PQcancel(cancel, &buffer, Int32(buffer.count)) == 0 {
                let said = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                failure = said.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            PQfreeCancel(cancel)
            done.signal()
        }
        let remaining = max(.zero, deadline - ContinuousClock.now).wholeMilliseconds
        guard done.wait(timeout: .now() + .milliseconds(Int(remaining))) == .success else {
            return "the cancel request got no answer in time"
        }
        return failure
    }
}
