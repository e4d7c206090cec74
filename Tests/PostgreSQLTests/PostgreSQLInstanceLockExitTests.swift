import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// A process that exits while its instance locks' checks are connecting again ends cleanly: OpenSSL's
/// exit handler used to free its locks under a check's TLS handshake, and the process died of a
/// segmentation fault in `RAND_status` (about one exit in two here, without ``PostgreSQLExitGate``).
@Suite struct PostgreSQLInstanceLockExitTests {
    /// Set in the child process this test starts, which runs the exit itself.
    private static let childVariable = "HARDTACK_TEST_EXIT_WHILE_RECONNECTING"

    @Test func aProcessExitingWhileItsLocksReconnectEndsCleanly() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] != nil {
            try exitWhileReconnecting()
        }
        for _ in 0..<4 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
            child.arguments = [
                "--testing-library", "swift-testing", "--filter", "aProcessExitingWhileItsLocksReconnectEndsCleanly",
            ]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.childVariable] = "1"
            // Under AddressSanitizer: the child exits mid-flight on purpose, its locks and connections
            // live, which LeakSanitizer would list; a crash is still reported (the last option wins).
            environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
            child.environment = environment
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            child.waitUntilExit()
            #expect(child.terminationReason == .exit, "the child died of signal \(child.terminationStatus)")
            #expect(child.terminationStatus == 0)
        }
    }

    /// Takes twenty locks, cuts their connections on the server, and exits as their one-second checks
    /// connect again.
    private func exitWhileReconnecting() throws -> Never {
        let locks = try (0..<20).map { _ in
            try PostgreSQLInstanceLock.take(location: TestServer.location(), options: .init())
        }
        let keys = locks.map { String($0.key) }.joined(separator: ",")
        _ = try TestServer.connect().query(
            """
            SELECT count(pg_terminate_backend(pid)) FROM pg_locks
            WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) IN (\(keys))
            """)
        usleep(UInt32.random(in: 800_000...1_200_000))
        withExtendedLifetime(locks) { exit(0) }
    }
}
