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
        var reaped = false
        defer { if !reaped { _ = child.killAndMeasure() } }  // however the test ends
        // Once it says it waits (looked for up to 60 s, only against a hang: a busy machine may take seconds to
        // start it), three seconds more of waiting: URLSession's curl driver spun a core for all of it (about
        // 2.4 CPU-seconds here); curl's own poll costs a few milliseconds. The start's own CPU is not counted.
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !String(decoding: FileBytes.read(errors), as: UTF8.self).contains("waiting for the server"),
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard let before = child.cpuSecondsSoFar() else {
            Issue.record("the child's CPU time could not be read in /proc")
            return
        }
        try await Task.sleep(for: .seconds(3))
        let cpuSeconds = child.killAndMeasure() - before
        reaped = true
        #expect(cpuSeconds < 0.4, "the wait cost \(cpuSeconds) CPU-seconds in 3 s")
        let said = String(decoding: FileBytes.read(errors), as: UTF8.self)
        #expect(said.contains("waiting for the server at 127.0.0.1 to answer"), "stderr: \(said)")
        #expect(said.components(separatedBy: "waiting for").count == 2, "said once: \(said)")
    }

    @Test func waitingForAnotherProcessesLockIsSaidOnceAndThenTheWriteGoesThrough() async throws {
        let executable = try #require(HardtackExecutable.path)
        try await sandbox.addGeneric(service: "s", account: "first", secret: "x")
        // Another process takes the store's write lock until the test lets it go (a file appears):
        // Python's sqlite3 module (Python ships on every machine the project runs its tests on), as any
        // SQLite client could. Held until told, not for a fixed time, so that a busy machine slow to start
        // the add cannot find the lock already free.
        let release = sandbox.directory.file("release-the-lock")
        let holder = try sandbox.launch(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import os, sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('BEGIN IMMEDIATE')
                print('held', flush=True)
                deadline = time.time() + 60
                while not os.path.exists(sys.argv[2]) and time.time() < deadline:
                    time.sleep(0.02)
                c.execute('COMMIT')
                """,
                sandbox.store, release,
            ])
        defer { if holder.process.isRunning { holder.process.terminate() } }
        // Bounded at 60 s only against a hang.
        let held = try await holder.awaitOutput { $0.outputSoFar.contains("held") ? true : nil }
        try #require(held == true, "the holder never took the lock: \(holder.errorsSoFar)")
        let adding = try sandbox.launch(
            executable, ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "s", "-a", "second", "-w", "y"])
        // Once the add says it waits, two more seconds under the lock, then it goes: the add can only end
        // after that if it waited. Timed on a thread of its own: timed by tasks, the release once came past
        // the add's 10 s bound while the suite kept Swift's two shared threads busy.
        let errors = adding.errPath
        let released = await DedicatedThread.run { () -> Bool in
            // Up to 60 s for the add to start and say it waits (only against a hang: a busy machine may take
            // seconds to start it).
            for _ in 0..<1200 where !String(decoding: FileBytes.read(errors), as: UTF8.self).contains("waiting for another process") {
                Thread.sleep(forTimeInterval: 0.05)
            }
            Thread.sleep(forTimeInterval: 2)
            return FileManager.default.createFile(atPath: release, contents: nil)
        }
        #expect(released)
        let add = await adding.wait()
        // Timed by the thread that waited for it: a task's own clock could count its wait to be resumed.
        let waited = try #require(add.elapsed)
        _ = await holder.wait()
        #expect(add.status == 0, "\(add.stderr)")
        #expect(waited > 1.5, "the add did not wait for the lock (\(waited) s)")
        #expect(add.stderr.contains("waiting for another process to release the store's lock"), "stderr: \(add.stderr)")
        #expect(add.stderr.components(separatedBy: "waiting for").count == 2, "said once: \(add.stderr)")
    }

    @Test func waitingForAnotherProcessesRefreshIsSaidAndItsTokensAreTaken() async throws {
        let executable = try #require(HardtackExecutable.path)
        let (server, url) = try await sandbox.startServer()
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
        // The first gives up on the server 15 s after its request, which it says it waits for a second into
        // that: the second is started, says it waits, and the server goes on within the rest. Timed on a
        // thread of its own, as the lock's release above: timed by tasks, the suite's busy shared threads could
        // hold the looks and the SIGCONT past the first's bound.
        let (sandbox, serverID) = (sandbox, server.process.processIdentifier)
        let (firstWaited, second) = try await DedicatedThread.run { () throws -> (Bool, RunningProcess) in
            // Bounded at 60 s only against a hang: the first says it waits before its own bound can end it.
            let deadline = Date() + 60
            while !first.errorsSoFar.contains("waiting for the server"), first.process.isRunning, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            let firstWaited = first.errorsSoFar.contains("waiting for the server")
            // Its 15 s end at most 14 s after it said so: 12 s for the second, and a margin for the answer.
            let said = Date()
            let second = try sandbox.launch(executable, ["refresh", "--store", sandbox.store])
            while !second.errorsSoFar.contains("waiting for another hardtack process"), Date() < said + 12 {
                Thread.sleep(forTimeInterval: 0.02)
            }
            kill(serverID, SIGCONT)
            return (firstWaited, second)
        }
        #expect(firstWaited, "the first never said it waits for the server: \(first.errorsSoFar)")
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
