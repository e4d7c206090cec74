#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

extension CrossProcessRefreshTests {
    /// The PostgreSQL server is stopped as a crash would (`pg_ctl stop -m immediate`) and started again
    /// while 3 processes × 4 accounts refresh after expiry: every process returns (served, or the store
    /// unreachable with the session kept, exit 75), every account then answers a call, and the auth
    /// server saw no refresh token presented twice.
    @Test func theServerRestartedDuringRefreshesLosesNothingAndHangsNothing() async throws {
        let database = try await OwnPostgreSQLServer.start(scratch: sandbox.directory.path)
        defer { database.stop() }
        let store = (
            arguments: ["--store", database.uri, "--key-env", "PG_KEY"],
            environment: ["PG_KEY": String(repeating: "6b", count: 32)]
        )
        let (server, url) = try await sandbox.startServer(["--access-token-lifetime", "2"])
        defer { server.process.terminate() }
        let accounts = ["north", "east", "south", "west"]
        try await signIn(accounts, url: url, store: store)
        let executable = try #require(HardtackExecutable.path)
        let callers = try (0..<3).flatMap { _ in
            try accounts.map { account in
                try sandbox.launch(
                    executable, ["me", "--server", url, "--account", account, "--concurrent", "3"] + store.arguments,
                    environment: store.environment)
            }
        }
        // The crash lands in the middle of the refreshes: once the auth server has rotated one token.
        // Bounded at 60 s only against a hang.
        let refreshed = try await Eventually.wait(every: .milliseconds(2)) { try sandbox.serverStats(url)["refreshes"] ?? 0 >= 1 }
        #expect(refreshed, "no refresh began before the crash")
        let down = ContinuousClock.now
        let crashed = try await database.crash()
        try #require(crashed.status == 0, "pg_ctl stop: \(crashed.stderr)")
        try await Task.sleep(for: .milliseconds(300))
        let restarted = try await database.restart()
        try #require(restarted.status == 0, "pg_ctl start: \(restarted.stderr)")
        // How long the store was away, for the messages below: a claimant retries its completion for 30 s.
        let outage = ContinuousClock.now - down

        // Nothing hangs: every process returns within the bound (the 45 s lease and more).
        let deadline = Date() + 90
        for caller in callers {
            while caller.process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(!caller.process.isRunning, "a process still runs 90 s after the restart")
            if caller.process.isRunning { kill(caller.process.processIdentifier, SIGKILL) }
        }
        for result in await callers.waitAll() {
            #expect([0, 75].contains(result.status), "exit \(result.status) (the store was away for \(outage)): \(result.stderr)")
        }
        // Nothing is lost: every account still has a usable session.
        for account in accounts {
            let me = try await sandbox.run(
                ["me", "--server", url, "--account", account] + store.arguments, environment: store.environment)
            #expect(me.status == 0, "\(account): exit \(me.status) (the store was away for \(outage)): \(me.stderr)")
        }
        let counters = try sandbox.serverStats(url)
        #expect(counters["reuseDetections"] == 0, "a refresh token was presented twice (the store was away for \(outage))")
        #expect(counters["refreshes"] ?? 0 >= accounts.count)
    }
}
