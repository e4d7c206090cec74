import COpenSSL
import Foundation

/// Keeps the instance locks' background checks out of the process's exit.
///
/// A check runs on a dispatch thread every second and, when its connection was lost, connects again
/// through libpq, which calls OpenSSL. `exit` runs OpenSSL's own exit handler, which frees OpenSSL's
/// locks while those threads still run: a reconnect at that moment used freed memory (AddressSanitizer
/// caught one, in `RAND_status`, as a test process ended). Checks pass through this gate, sharing it;
/// the exit handler registered here closes it, waiting for a check under way, and no check starts
/// after. The handler is registered after OpenSSL is set up, so it runs before OpenSSL's (exit runs
/// its handlers last registered first).
package final class PostgreSQLExitGate: Sendable {
    /// The gate the process's exit closes.
    package static let process: PostgreSQLExitGate = {
        let gate = PostgreSQLExitGate()
        // OpenSSL registers its exit handler when first set up for any option (with none, it does
        // nothing): set it up now, with the error strings libpq loads anyway, so that ours, registered
        // after, runs first.
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_LOAD_CRYPTO_STRINGS), nil)
        atexit { PostgreSQLExitGate.process.close() }
        return gate
    }()

    /// Shared by passing checks, taken whole by ``close()``. Never freed: the gate lives as long as
    /// the process.
    // Safety: a pthread rwlock is made to be used from many threads at once; the pointer never changes.
    private nonisolated(unsafe) let rwlock: UnsafeMutablePointer<pthread_rwlock_t>
    // Safety: written only under the write lock, read only under a read lock.
    private nonisolated(unsafe) var isClosed = false

    /// An open gate (tests make their own; the instance locks use ``process``).
    package init() {
        rwlock = .allocate(capacity: 1)
        pthread_rwlock_init(rwlock, nil)
    }

    /// Runs `body` unless the gate is closed, holding the gate open meanwhile; `nil` once closed.
    package func pass<Value>(_ body: () -> Value?) -> Value? {
        pthread_rwlock_rdlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        return isClosed ? nil : body()
    }

    /// Closes the gate for good, after the checks passing through it have ended.
    package func close() {
        pthread_rwlock_wrlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        isClosed = true
    }
}
