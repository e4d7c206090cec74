import Foundation
import Testing

@_spi(HardtackTools) @testable import PostgreSQLStore

#if canImport(Glibc)
    import Glibc
#endif

/// Connecting, failing to connect, timeouts, and a connection killed by the server.
@Suite struct PostgreSQLConnectionTests {
    @Test func connectsAndReportsItsState() throws {
        let start = ContinuousClock.now
        let connection = try TestServer.connect()
        let elapsed = ContinuousClock.now - start
        print("connect (TCP, scram-sha-256): \(elapsed)")
        #expect(connection.isHealthy)
        #expect(connection.transactionStatus == .idle)
        #expect(connection.backendPID > 0)
        #expect(connection.serverVersion >= 150_000)
        let result = try connection.query("SELECT current_user, pg_backend_pid(), current_setting('application_name')")
        #expect(try result.string(0, 0) == "hardtack")
        #expect(try result.int32(0, 1) == connection.backendPID)
        #expect(try result.string(0, 2) == "hardtack")
    }

    @Test func theURIOverridesTheDefaultSettings() throws {
        let uri = try TestServer.uri() + "?application_name=from-uri"
        let connection = try PostgreSQLConnection(uri: uri)
        let result = try connection.query("SELECT current_setting('application_name')")
        #expect(try result.string(0, 0) == "from-uri")
    }

    @Test func aWrongPasswordIsATypedErrorWithoutThePassword() throws {
        let wrong = "wrong-\(UInt64.random(in: 1_000_000...9_999_999))"
        let start = ContinuousClock.now
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(uri: TestServer.uri(password: wrong), options: .init(connectTimeout: .seconds(3)))
        }
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(error.kind == .connectionFailed)
        #expect(error.description.contains("password authentication failed"), "\(error)")
        try TestServer.expectNoSecret(error, [wrong])
    }

    /// The server's code comes with a refused connection (read from libpq's verbose message, so that a server
    /// that speaks another language is still understood), and the message reads as libpq's default says it.
    @Test(arguments: [("password", "28P01"), ("database", "3D000")])
    func aRefusedConnectionCarriesTheServersSQLSTATE(wrong: String, state: String) throws {
        var components = try #require(URLComponents(string: TestServer.uri()))
        if wrong == "password" { components.password = "wrong-\(UInt64.random(in: 1_000_000...9_999_999))" }
        if wrong == "database" { components.path = "/no_such_database_\(UInt64.random(in: 1_000_000...9_999_999))" }
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(uri: #require(components.string), options: .init(connectTimeout: .seconds(3)))
        }
        #expect(error.kind == .connectionFailed && error.sqlState == state, "\(error)")
        #expect(error.message.contains("FATAL:  ") && !error.message.contains(state), "\(error.message)")
        #expect(!error.message.contains("LOCATION"), "\(error.message)")
        #expect(PostgreSQLFailure.failure(error).kind == .notAuthenticated)
        try TestServer.expectNoSecret(error)
    }

    @Test func aClosedPortIsATypedErrorWithinTheTimeout() throws {
        let start = ContinuousClock.now
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(uri: TestServer.uri(port: 1), options: .init(connectTimeout: .seconds(2)))
        }
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(error.kind == .connectionFailed)
        #expect(error.description.contains("127.0.0.1"), "\(error)")
        try TestServer.expectNoSecret(error)
    }

    @Test func aServerThatNeverAnswersTimesOutTheConnect() throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let start = ContinuousClock.now
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(
                uri: TestServer.uri(port: listener.port), options: .init(connectTimeout: .milliseconds(700)))
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(650) && elapsed < .seconds(4), "\(elapsed)")  // loose above: a busy machine
        #expect(error.kind == .connectionFailed)
        #expect(error.description.contains("no answer"), "\(error)")
        try TestServer.expectNoSecret(error)
    }

    // A grace far longer than a cancel takes (the server starts a process for it, which a busy machine may
    // delay past the default 2 s), and a query far longer than that: only the cancel can end it with this
    // error (a lost cancel would close the connection after the grace, another error).
    @Test func aQueryPastItsTimeoutIsCancelledAndTheConnectionStaysUsable() throws {
        let connection = try TestServer.connect(.init(cancelGrace: .seconds(20)))
        let start = ContinuousClock.now
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.query("SELECT pg_sleep(60)", timeout: .milliseconds(500))
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(500) && elapsed < .seconds(20), "\(elapsed)")
        #expect(error.kind == .timedOut)
        #expect(error.isTimeout && !error.isConnectionLost)
        #expect(connection.isHealthy)
        #expect(try connection.prepared("SELECT 1").int32(0, 0) == 1)
    }

    @Test func aTimeoutInsideATransactionLeavesItFailed() throws {
        let connection = try TestServer.connect(.init(cancelGrace: .seconds(20)))
        try connection.execute("BEGIN")
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.prepared("SELECT pg_sleep(60)", timeout: .milliseconds(300))
        }
        #expect(error.kind == .timedOut)
        #expect(connection.transactionStatus == .inFailedTransaction)
        try connection.execute("ROLLBACK")
        #expect(connection.transactionStatus == .idle)
    }

    @Test func aCancelThatCannotFinishInTimeClosesTheConnection() throws {
        // No grace at all: the cancelled query cannot have ended, so the only bounded way out is to close.
        let connection = try TestServer.connect(.init(cancelGrace: .zero))
        _ = try connection.prepared("SELECT 1")
        let start = ContinuousClock.now
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.query("SELECT pg_sleep(5)", timeout: .milliseconds(300))
        }
        #expect(ContinuousClock.now - start < .seconds(4), "closed, not waited for the 5 s query")
        #expect(error.kind == .timedOutConnectionClosed)
        #expect(error.isTimeout && error.isConnectionLost)
        #expect(!connection.isHealthy)
        #expect(connection.transactionStatus == .unknown)
        let closed = try #require(throws: PostgreSQLError.self) { try connection.execute("SELECT 1") }
        #expect(closed.kind == .connectionLost)
        try connection.reconnect()
        #expect(try connection.prepared("SELECT 1").int32(0, 0) == 1)
    }

    @Test func aTerminatedBackendIsConnectionLostAndReconnectWorks() throws {
        let victim = try TestServer.connect()
        let killer = try TestServer.connect()
        #expect(try victim.prepared("SELECT $1::int4 + 1", [.int32(1)]).int32(0, 0) == 2)
        let pid = victim.backendPID
        // With a timeout, pg_terminate_backend waits until the backend is gone.
        let terminated = try killer.query("SELECT pg_terminate_backend($1, 5000)", [.int32(pid)])
        #expect(try terminated.bool(0, 0))

        let error = try #require(throws: PostgreSQLError.self) {
            try victim.prepared("SELECT $1::int4 + 1", [.int32(1)])
        }
        #expect(error.kind == .connectionLost, "\(error)")
        #expect(error.isConnectionLost)
        #expect(!victim.isHealthy)
        try TestServer.expectNoSecret(error)

        try victim.reconnect()
        #expect(victim.backendPID != pid)
        #expect(try victim.prepared("SELECT $1::int4 + 1", [.int32(41)]).int32(0, 0) == 42)
        #expect(victim.preparedStatementCount == 1)
    }

    @Test func aConnectionLostDuringACallIsConnectionLost() throws {
        let connection = try TestServer.connect()
        // The backend ends itself while answering: the call was under way when the connection went.
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.query("SELECT pg_terminate_backend(pg_backend_pid())", timeout: .seconds(3))
        }
        #expect(error.kind == .connectionLost, "\(error)")
        #expect(connection.transactionStatus == .unknown)
        let next = try #require(throws: PostgreSQLError.self) { try connection.execute("SELECT 1") }
        #expect(next.kind == .connectionLost && next.description.contains("reconnect"), "\(next)")
        try connection.reconnect()
        #expect(connection.isHealthy)
    }

    /// A pipeline cut off after some statements answered: the typed error, and (under
    /// `--sanitize=address`, which checks leaks) the answers already read are freed with it.
    @Test(arguments: ["timeout", "terminated"])
    func aPipelineCutMidwayFreesWhatItReadAndSaysWhy(_ cut: String) throws {
        let connection = try TestServer.connect()
        let last =
            cut == "timeout"
            ? PostgreSQLConnection.PipelinedStatement("SELECT pg_sleep(5)")
            : PostgreSQLConnection.PipelinedStatement("SELECT pg_terminate_backend(pg_backend_pid())")
        let batch = [
            PostgreSQLConnection.PipelinedStatement("SELECT $1::int4", [.int32(1)]),
            PostgreSQLConnection.PipelinedStatement("SELECT $1::int4", [.int32(2)]), last,
        ]
        let start = ContinuousClock.now
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.pipeline(batch, timeout: .milliseconds(cut == "timeout" ? 300 : 3000))
        }
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(error.kind == (cut == "timeout" ? .timedOutConnectionClosed : .connectionLost), "\(error)")
        #expect(!connection.isHealthy)
        try connection.reconnect()
        let answers = try connection.pipeline(Array(batch.prefix(2)))
        #expect(try answers.map { try $0.int32(0, 0) } == [1, 2])
    }
}

/// A TCP socket on 127.0.0.1 that listens but never accepts or answers: the kernel completes the
/// handshake, and the server's side stays silent.
private struct SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        try #require(bound)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
