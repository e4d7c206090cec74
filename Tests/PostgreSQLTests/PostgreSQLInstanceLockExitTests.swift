import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// The instance locks and the process's exit: a process that exits while its locks' checks connect
/// again ends cleanly (OpenSSL's exit handler used to free its locks under a check's TLS handshake,
/// and the process died of a segmentation fault in `RAND_status`), and once the exit has begun a lock
/// let go leaves its connection for the exit to close.
@Suite(.timeLimit(.minutes(3))) struct PostgreSQLInstanceLockExitTests {
    /// Set in the child process the exit test starts, which runs the exit itself.
    private static let childVariable = "HARDTACK_TEST_EXIT_WHILE_RECONNECTING"
    /// How many locks the child takes.
    private static let lockCount = 20
    /// What the child exits with when it got as far as exiting with its locks reconnecting.
    private static let childExitStatus: Int32 = 42

    @Test func aProcessExitingWhileItsLocksReconnectEndsCleanly() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] != nil {
            exitWhileReconnecting()
        }
        _ = try TestServer.location()
        // Each child catches the old crash about one time in three. Two children here; one under a
        // sanitizer, where each costs minutes of the sanitized suite's time limit.
        let environment = ProcessInfo.processInfo.environment
        let sanitized = environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
        for _ in 0..<(sanitized ? 1 : 2) {
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
            let errors = FileManager.default.temporaryDirectory.appendingPathComponent("exit-child-\(UUID()).log")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: errors) }
            child.standardOutput = FileHandle.nullDevice
            child.standardError = try FileHandle(forWritingTo: errors)
            try child.run()
            let deadline = Date() + 120
            while child.isRunning && Date() < deadline { usleep(50_000) }
            if child.isRunning {
                child.terminate()
                child.waitUntilExit()
                Issue.record("the child had not exited after 120 s")
                return
            }
            let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            #expect(
                child.terminationReason == .exit && child.terminationStatus == Self.childExitStatus,
                "the child ended with \(child.terminationReason == .exit ? "status" : "signal") \(child.terminationStatus): \(said.suffix(800))"
            )
        }
    }

    /// Takes twenty locks, has the server end their sessions, and exits as their one-second checks
    /// connect again (with 3 when it could not set that up).
    private func exitWhileReconnecting() -> Never {
        do {
            let locks = try (0..<Self.lockCount).map { _ in
                try PostgreSQLInstanceLock.take(location: TestServer.location(), options: .init())
            }
            let keys = locks.map { String($0.key) }.joined(separator: ",")
            let ended = try TestServer.connect().query(
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_locks
                WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) IN (\(keys))
                """
            ).int64(0, 0)
            guard ended == Self.lockCount else {
                FileHandle.standardError.write(Data("ended \(ended) sessions of \(Self.lockCount)\n".utf8))
                exit(3)
            }
            usleep(UInt32.random(in: 800_000...1_200_000))
            withExtendedLifetime(locks) { exit(Self.childExitStatus) }
        } catch {
            FileHandle.standardError.write(Data("could not set up: \(error)\n".utf8))
            exit(3)
        }
    }

    @Test func aLockLetGoOnceTheExitHasBegunLeavesItsConnectionOpen() throws {
        let gate = PostgreSQLExitGate()
        let lock = try PostgreSQLInstanceLock.take(location: TestServer.location(), options: .init(), gate: gate)
        let server = try TestServer.connect()
        func held() throws -> Int64 {
            try server.query(
                """
                SELECT count(*) FROM pg_locks
                WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1
                """, [.int64(lock.key)]
            ).int64(0, 0)
        }
        #expect(try held() == 1)
        gate.close()
        // Closing the TLS connection would call OpenSSL, whose state the exit frees: it is left open.
        lock.release()
        #expect(try held() == 1)

        // Before the exit, letting go closes the connection, and the server frees the lock.
        let other = try PostgreSQLInstanceLock.take(
            location: TestServer.location(), options: .init(), gate: PostgreSQLExitGate())
        let otherKey = other.key
        other.release()
        var stillHeld = Int64(1)
        let deadline = Date() + 30
        while stillHeld > 0 && Date() < deadline {
            stillHeld = try server.query(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) = $1",
                [.int64(otherKey)]
            ).int64(0, 0)
            if stillHeld > 0 { usleep(20_000) }
        }
        #expect(stillHeld == 0, "a lock let go before the exit was still held 30 s later")
    }
}
