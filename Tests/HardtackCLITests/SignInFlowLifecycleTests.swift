#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// The browser and device flows as parts of the app: the session goes under `--account`, a sign-in
/// that replaces a session revokes the replaced refresh token, and Ctrl-C during the wait for the user
/// ends the sign-in with exit 130 and stores nothing.
@Suite struct SignInFlowLifecycleTests {
    let flows = CodeFlowTests()
    var sandbox: CLISandbox { flows.sandbox }

    /// Starts a sign-in and returns once its standard error says `marker` (it is then waiting for the user).
    func launchWaiting(_ arguments: [String], until marker: String, environment: [String: String] = [:]) async throws
        -> RunningProcess
    {
        let executable = try #require(HardtackExecutable.path)
        let running = try sandbox.launch(executable, arguments, environment: environment)
        // Bounded at 60 s only against a hang: the sign-in itself waits 300 s for the user.
        if try await running.awaitOutput(bound: 60, { $0.errorsSoFar.contains(marker) ? true : nil }) == true {
            return running
        }
        running.process.terminate()
        Issue.record("the sign-in never said \(marker): \(await running.wait().stderr)")
        throw CancellationError()
    }

    @Test func aDeviceSignInGoesUnderTheAccountGiven() async throws {
        let (server, url) = try await flows.sandbox.startServer(["--device-interval", "1"])
        defer { flows.stop(server) }
        let result = try await DeviceFlowCLITests(sandbox: sandbox).signIn(
            url, decision: "approve", extra: ["--account", "work"])
        #expect(result.status == 0, "\(result.stderr)")
        let store = sandbox.store
        #expect(try await sandbox.run(["status", "--account", "work", "--store", store]).status == 0)
        #expect(try await sandbox.run(["status", "--store", store]).status == 3)
        let accounts = try await sandbox.run(["accounts", "--store", store])
        #expect(accounts.status == 0 && accounts.stdout.contains("work"), "\(accounts.stdout)")
    }

    @Test func aCodeSignInUnderAnAccountRevokesOnlyThatAccountsReplacedToken() async throws {
        let (server, url) = try await flows.sandbox.startServer()
        defer { flows.stop(server) }
        let browser = try ScriptedBrowser.install(in: sandbox.directory.path)
        func signIn(_ account: String) async throws -> CLIResult {
            try await sandbox.run(
                ["signin", "--flow", "code", "--issuer", url, "--account", account, "--store", sandbox.store],
                environment: ["BROWSER": browser, "SCRIPTED_BROWSER_MODE": "approve"])
        }
        #expect(try await signIn("work").status == 0)
        #expect(try await signIn("home").status == 0)
        #expect(try sandbox.serverStats(url)["revocations"] == 0)
        // Signing in to "work" again replaces its session: that one refresh token is revoked, "home"'s is not.
        let again = try await signIn("work")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try sandbox.serverStats(url)["revocations"] == 1)
        for account in ["work", "home"] {
            let refreshed = try await sandbox.run(["refresh", "--account", account, "--store", sandbox.store])
            #expect(refreshed.status == 0, "\(account): \(refreshed.stderr) \(refreshed.stdout)")
        }
        #expect(try sandbox.serverStats(url)["reuseDetections"] == 0)
    }

    @Test func ctrlCDuringTheDeviceWaitStoresNothingAndKeepsTheEarlierSession() async throws {
        let (server, url) = try await flows.sandbox.startServer(["--device-interval", "1"])
        defer { flows.stop(server) }
        // Nothing stored: no store is made.
        let first = try await launchWaiting(
            ["signin", "--flow", "device", "--issuer", url, "--store", sandbox.store], until: "Waiting for approval")
        first.process.interrupt()
        let cancelled = await first.wait()
        #expect(cancelled.status == 130, "\(cancelled.stderr)")
        #expect(cancelled.stderr.contains("sign-in cancelled; nothing was stored"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
        // A session already there stays, unrevoked.
        let device = DeviceFlowCLITests(sandbox: sandbox)
        #expect(try await device.signIn(url, decision: "approve").status == 0)
        let second = try await launchWaiting(
            ["signin", "--flow", "device", "--issuer", url, "--store", sandbox.store], until: "Waiting for approval")
        second.process.interrupt()
        #expect(await second.wait().status == 130)
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 0)
        #expect(try sandbox.serverStats(url)["revocations"] == 0)
    }

    @Test func ctrlCDuringTheBrowserWaitStoresNothing() async throws {
        let (server, url) = try await flows.sandbox.startServer()
        defer { flows.stop(server) }
        // A "browser" that opens nothing: the user never comes back, and presses Ctrl-C instead.
        let running = try await launchWaiting(
            ["signin", "--flow", "code", "--issuer", url, "--store", sandbox.store], until: "Open this URL",
            environment: ["BROWSER": "/bin/true"])
        try await Task.sleep(for: .milliseconds(200))
        running.process.interrupt()
        let result = await running.wait()
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("sign-in cancelled; nothing was stored"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }
}
