import COpenSSL
import Foundation

/// Keeps the instance locks' background work out of the process's exit.
///
/// A lock's check runs on a dispatch thread every second and, when its connection was lost, connects
/// again through libpq, which calls OpenSSL. `exit` runs OpenSSL's exit handler, which frees OpenSSL's
/// locks while those threads still run: a reconnect at that moment used freed memory and killed the
/// process (AddressSanitizer caught one, in `RAND_status`, as a test process ended). The checks, and
/// the closing of a lock's connection, pass through this gate. The exit handler registered here closes
/// it at once, so that nothing more passes, and waits for what is passing; it is registered after
/// OpenSSL's, so it runs before it (exit runs its handlers last registered first).
package final class PostgreSQLExitGate: Sendable {
    /// The gate the process's exit closes.
    package static let process: PostgreSQLExitGate = {
        let gate = PostgreSQLExitGate()
        // OpenSSL registers its exit handler when first set up for some option (asked for none, it
        // returns at once): set it up now, with the error strings libpq loads anyway, so that ours,
        // registered after, runs first.
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_LOAD_CRYPTO_STRINGS), nil)
        atexit { PostgreSQLExitGate.process.close() }
        return gate
    }()

    /// Guards the state below, and wakes ``close()`` when the last pass ends.
    private let condition = NSCondition()
    // Safety: read and written only while `condition` is locked.
    private nonisolated(unsafe) var isClosed = false
    /// How many bodies are running in ``pass(_:)``.
    // Safety: read and written only while `condition` is locked.
    private nonisolated(unsafe) var passing = 0
    /// Connections let go unclosed once the gate was closed, kept to the end (see ``keep(_:)``).
    // Safety: read and written only while `condition` is locked; the connections in it are held, never
    // used, so no two threads use one.
    private nonisolated(unsafe) var kept: [PostgreSQLConnection] = []

    /// An open gate (tests make their own; the instance locks use ``process``).
    package init() {}

    /// Runs `body` unless the gate is closed; `nil` once closed, without running it.
    package func pass<Value>(_ body: () -> Value?) -> Value? {
        condition.lock()
        guard !isClosed else {
            condition.unlock()
            return nil
        }
        passing += 1
        condition.unlock()
        defer {
            condition.lock()
            passing -= 1
            if passing == 0 { condition.broadcast() }
            condition.unlock()
        }
        return body()
    }

    /// Runs `body` unless the gate is closed; whether it ran.
    package func passes(_ body: () -> Void) -> Bool {
        pass { () -> Void? in body() } != nil
    }

    /// Closes the gate for good: nothing passes from now on, and it returns once what is passing has.
    package func close() {
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        while passing > 0 { condition.wait() }
    }

    /// Keeps a connection that a closed gate kept from being closed: closing a TLS connection calls
    /// OpenSSL, whose state the exit frees. The process's gate keeps it to the exit, which closes its
    /// socket (and a leak checker still finds it reachable); a test's own gate closes it when it ends.
    func keep(_ connection: PostgreSQLConnection) {
        condition.lock()
        defer { condition.unlock() }
        kept.append(connection)
    }
}
