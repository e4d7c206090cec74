package import Data
import Dispatch
import Foundation

/// This instance's sign of life on a PostgreSQL server: a session-level advisory lock held on an idle
/// connection of its own, so that another instance, on any machine, can tell within a second that the
/// owner of a refresh claim has ended (the server releases a killed client's lock when its connection
/// closes: 65 ms measured here; the lock must then stay free for 3 s, so that a live instance whose
/// connection was cut is not taken for ended), instead of waiting for the claim's lease to run out.
///
/// The lock's key, random, goes into this instance's owner ids (``ownerTag``). A claim whose owner's
/// lock can be taken belongs to an instance that has ended. The connection is checked every second and,
/// when lost (a server restart, a network cut), opened again and the lock taken again; until then this
/// instance looks ended to the others (see docs/app-core.md for what that window allows).
///
/// A machine that crashes or is cut off never closes its socket: the server is asked to end this
/// session after ``silenceLimit`` without a check (`idle_session_timeout`, and TCP keepalives on its
/// side), so such an instance too is seen ended within seconds (10 s, then the 3 s confirmation).
///
/// Never take it through a transaction pooler (PgBouncer in transaction mode): a session-level lock
/// needs a session of its own.
public final class PostgreSQLInstanceLock: Sendable {
    /// The advisory lock's key, also written in this instance's owner ids.
    public let key: Int64
    /// Guards ``connection``, which one thread uses at a time.
    private let lock = NSLock()
    // Safety: read and written only while `lock` is held.
    private nonisolated(unsafe) var connection: PostgreSQLConnection?
    /// When each other instance's lock was first seen free, in the run of checks that found it free.
    // Safety: read and written only while `lock` is held.
    private nonisolated(unsafe) var freeSince: [Int64: ContinuousClock.Instant] = [:]
    /// How long another instance's lock must stay free before that instance counts as ended: longer
    /// than its one-second check plus a reconnect, which take a cut lock again.
    static let confirmation: Duration = .seconds(3)
    /// How often the connection is checked, and the lock taken again after it was lost.
    private static let checkInterval: DispatchTimeInterval = .seconds(1)
    /// Where an owner id's lock key starts.
    static let tagPrefix = "+pglock"
    /// What the checks and the closing of the connection pass through, closed by the process's exit.
    private let gate: PostgreSQLExitGate

    private init(key: Int64, connection: PostgreSQLConnection, gate: PostgreSQLExitGate) {
        self.key = key
        self.connection = connection
        self.gate = gate
    }

    /// Opens a connection of its own to `location` and takes a lock under a random key nobody holds;
    /// its checks pass through `gate` (tests give their own).
    /// - Throws: ``SecureStoreError/storage(_:)`` when the server cannot be reached.
    package static func take(
        location: PostgreSQLLocation, options: PostgreSQLConnectionOptions, gate: PostgreSQLExitGate = .process
    ) throws(SecureStoreError) -> PostgreSQLInstanceLock {
        var options = options
        options.applicationName = String((options.applicationName + " instance").prefix(63))
        do {
            let connection = try PostgreSQLConnection(to: location, options: options)
            configureEndDetection(connection)
            for _ in 0..<8 {
                let key = Int64.random(in: 1...Int64.max)
                if try connection.query("SELECT pg_try_advisory_lock($1)", [.int64(key)]).bool(0, 0) {
                    let taken = PostgreSQLInstanceLock(key: key, connection: connection, gate: gate)
                    taken.scheduleCheck()
                    return taken
                }
            }
            throw SecureStoreError.storage(.store("no free advisory lock key was found for this instance"))
        } catch let error as PostgreSQLError {
            throw PostgreSQLFailure.storeError(error)
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw .storage(.store("unexpected failure"))
        }
    }

    /// What this instance appends to its owner ids: the key of its lock.
    public var ownerTag: String { Self.tagPrefix + String(key) }

    /// Whether the instance that wrote `owner` has ended: its owner id names a lock key, and that lock
    /// has been seen free over ``confirmation`` (3 s) of checks. `false` when nothing is known (no key, this instance's own, or the server cannot be
    /// asked): the claim's lease then decides.
    public func isGone(_ owner: String) -> Bool {
        guard let range = owner.range(of: Self.tagPrefix, options: .backwards),
            let theirs = Int64(owner[range.upperBound...]), theirs != key
        else { return false }
        let free =
            withConnection { connection throws(PostgreSQLError) in
                // Taken means free: give it back at once, in the same statement.
                let sql = "SELECT CASE WHEN pg_try_advisory_lock($1) THEN pg_advisory_unlock($1) ELSE false END"
                return try connection.query(sql, [.int64(theirs)], timeout: .seconds(2)).bool(0, 0)
            } ?? false
        // A live instance whose lock connection was cut (a server restart, a network cut) takes its lock
        // again within its one-second check: only a lock free for longer than that means an end.
        let now = ContinuousClock.now
        lock.lock()
        defer { lock.unlock() }
        guard free else {
            freeSince[theirs] = nil
            return false
        }
        let since = freeSince[theirs] ?? now
        guard now - since >= Self.confirmation else {
            freeSince[theirs] = since
            return false
        }
        freeSince[theirs] = nil
        return true
    }

    /// The value of the server setting `name` on the lock's connection (for tests of what the session
    /// was asked to do), or `nil` when the server cannot be asked.
    package func sessionSetting(_ name: String) -> String? {
        withConnection { connection throws(PostgreSQLError) in
            try connection.query("SELECT current_setting($1)", [.text(name)], timeout: .seconds(2)).string(0, 0)
        }
    }

    /// Closes the connection, and with it the lock, as the end of this instance would; the periodic
    /// check stops.
    public func release() {
        lock.lock()
        let released = connection
        connection = nil
        lock.unlock()
        // Closed outside the lock: a check holds it while it passes the gate.
        if let released { finish(released) }
    }

    /// Whether ``release()`` was called.
    private var isReleased: Bool {
        lock.lock()
        defer { lock.unlock() }
        return connection == nil
    }

    deinit {
        if let connection { finish(connection) }
    }

    /// Closes `connection`, or, once the process is exiting, lets it go unclosed for the exit to close.
    private func finish(_ connection: PostgreSQLConnection) {
        if !gate.passes({ connection.close() }) { gate.keep(connection) }
    }

    /// Runs `body` on the connection, opening it again and retaking the lock first when it was lost;
    /// `nil` when the server cannot be asked, after ``release()``, or once the process is exiting
    /// (``PostgreSQLExitGate``).
    private func withConnection<Value>(_ body: (PostgreSQLConnection) throws(PostgreSQLError) -> Value) -> Value? {
        gate.pass { withOpenConnection(body) }
    }

    /// ``withConnection(_:)`` inside the exit gate.
    private func withOpenConnection<Value>(_ body: (PostgreSQLConnection) throws(PostgreSQLError) -> Value) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let connection else { return nil }
        do {
            if !connection.isHealthy { try relock(connection) }
            return try body(connection)
        } catch where error.isConnectionLost {
            guard (try? relock(connection)) != nil else { return nil }
            return try? body(connection)
        } catch {
            return nil
        }
    }

    /// Connects again and takes this instance's lock again (a lost connection released it).
    private func relock(_ connection: PostgreSQLConnection) throws(PostgreSQLError) {
        try connection.reconnect()
        Self.configureEndDetection(connection)
        _ = try connection.query("SELECT pg_advisory_lock($1)", [.int64(key)], timeout: .seconds(2))
    }

    /// How long the server lets this connection sit silent before it ends the session, and so frees the
    /// lock: ten one-second checks missed. A process that ends closes its socket and frees the lock at
    /// once; this is for an instance whose machine crashed or was cut off, whose socket never closes
    /// (without it the server would notice only through TCP keepalive, hours later by default).
    static let silenceLimit = "10s"

    /// Asks the server to end this session when it goes silent (``silenceLimit``): PostgreSQL 14's
    /// `idle_session_timeout`, and the server side's TCP keepalives and user timeout for a peer that
    /// stops answering at the TCP level. A server that knows neither setting keeps the lease as the
    /// bound, so failures here are not errors.
    private static func configureEndDetection(_ connection: PostgreSQLConnection) {
        for setting in [
            "SET idle_session_timeout = '\(silenceLimit)'", "SET tcp_keepalives_idle = 5", "SET tcp_keepalives_interval = 1",
            "SET tcp_keepalives_count = 5", "SET tcp_user_timeout = 10000",
        ] {
            try? connection.execute(setting, timeout: .seconds(2))
        }
    }

    /// Checks the connection every second, so that a lost lock is taken again without waiting for a
    /// claim to look at it.
    private func scheduleCheck() {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.checkInterval) { [weak self] in
            guard let self, !self.isReleased else { return }
            // A failure (the server restarting) is tried again at the next check.
            _ = self.withConnection { connection throws(PostgreSQLError) in
                try connection.execute("SELECT 1", timeout: .seconds(2))
            }
            self.scheduleCheck()
        }
    }
}
