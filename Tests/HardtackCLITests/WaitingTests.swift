#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// Waits cost next to nothing and are said: a `signin` kept waiting by a server that accepts the
/// connection and never answers.
@Suite struct WaitingTests {
    let sandbox = CLISandbox()

    @Test func waitingForASilentServerIdlesAndSaysSoAfterASecond() async throws {
        let executable = try #require(HardtackExecutable.path)
        let server = try SilentServer()
        let input = try sandbox.privateFile("password", "wonderland\n")
        let errors = sandbox.directory.file("signin-errors")
        let child = try MeasuredProcess(
            executable,
            ["signin", "--server", server.url, "--username", "alice", "--password-stdin", "--store", sandbox.store],
            environment: ["HOME": sandbox.directory.file("home"), "PATH": "/usr/bin:/bin"], input: input,
            errorPath: errors)
        // Three seconds of waiting: URLSession's curl driver spun a core for all of it (about 2.4
        // CPU-seconds here); curl's own poll costs a few milliseconds.
        try await Task.sleep(for: .seconds(3))
        let cpuSeconds = child.killAndMeasure()
        #expect(cpuSeconds < 0.4, "the wait cost \(cpuSeconds) CPU-seconds in 3 s")
        let said = String(decoding: FileBytes.read(errors), as: UTF8.self)
        #expect(said.contains("waiting for the server at 127.0.0.1 to answer"), "stderr: \(said)")
        #expect(said.components(separatedBy: "waiting for").count == 2, "said once: \(said)")
    }

    @Test func waitingForAnotherProcessesLockIsSaidOnceAndThenTheWriteGoesThrough() async throws {
        try await sandbox.addGeneric(service: "s", account: "first", secret: "x")
        // Another process takes the store's write lock for 3 s: Python's sqlite3 module (Python ships
        // on every machine the project runs its tests on), as any SQLite client could.
        let holder = try sandbox.launch(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
                    + "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); time.sleep(3); c.execute('COMMIT')",
                sandbox.store,
            ])
        for _ in 0..<100 where !String(decoding: FileBytes.read(holder.outPath), as: UTF8.self).contains("held") {
            usleep(50_000)
        }
        let started = Date()
        let add = try await sandbox.keychain(["add-generic-password", "-s", "s", "-a", "second", "-w", "y"])
        let waited = Date().timeIntervalSince(started)
        _ = await holder.wait()
        #expect(add.status == 0, "\(add.stderr)")
        #expect(waited > 1.5, "the add did not wait for the lock (\(waited) s)")
        #expect(add.stderr.contains("waiting for another process to release the store's lock"), "stderr: \(add.stderr)")
        #expect(add.stderr.components(separatedBy: "waiting for").count == 2, "said once: \(add.stderr)")
    }

    @Test func waitingForAnotherProcessesRefreshIsSaidAndItsTokensAreTaken() async throws {
        let executable = try #require(HardtackExecutable.path)
        let (server, url) = try sandbox.startServer()
        defer {
            kill(server.process.processIdentifier, SIGCONT)
            server.process.terminate()
            _ = server.waitAfterStop()
        }
        let signIn = try await sandbox.run(
            ["signin", "--server", url, "--username", "alice", "--password-stdin", "--store", sandbox.store],
            input: "wonderland")
        #expect(signIn.status == 0, "\(signIn.stderr)")
        // The server stops answering (its socket still accepts): the first refresh claims the session and
        // waits for the answer; the second finds the claim of a live process and waits for its result.
        kill(server.process.processIdentifier, SIGSTOP)
        let first = try sandbox.launch(executable, ["refresh", "--store", sandbox.store])
        func said(_ running: RunningProcess, _ text: String) -> Bool {
            String(decoding: FileBytes.read(running.errPath), as: UTF8.self).contains(text)
        }
        for _ in 0..<200 where !said(first, "waiting for the server") { usleep(20_000) }
        #expect(said(first, "waiting for the server"))
        let second = try sandbox.launch(executable, ["refresh", "--store", sandbox.store])
        for _ in 0..<200 where !said(second, "waiting for another hardtack process") { usleep(20_000) }
        kill(server.process.processIdentifier, SIGCONT)
        let (one, two) = (await first.wait(), await second.wait())
        #expect(one.status == 0, "\(one.stderr)")
        #expect(two.status == 0, "\(two.stderr)")
        #expect(two.stderr.contains("waiting for another hardtack process that is refreshing the session"), "\(two.stderr)")
        #expect(two.stderr.components(separatedBy: "waiting for").count == 2, "said once: \(two.stderr)")
        // One refresh for both: the second took the first's tokens and never presented the old refresh token.
        let stats = try sandbox.serverStats(url)
        #expect(stats["refreshes"] == 1 && stats["reuseDetections"] == 0, "\(stats)")
    }
}
