@testable import BrowserRedirect
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one-shot redirect listener: 127.0.0.1 on an ephemeral port, other paths answered 404 and other
/// methods 400, the redirect's query returned after the page is served (or held until the caller
/// answers), a repeated redirect refused, a bounded wait that cancellation and closing also end.
@Suite struct LoopbackRedirectListenerTests {
    /// A request with a long timeout: the listener's wait starts only when its task is scheduled on Swift's
    /// cooperative pool, which the whole suite's synchronous tests can keep busy for over a minute on a
    /// 2-core machine (URLSession's default 60 s then ran out here).
    func get(_ url: String, method: String = "GET") async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.timeoutInterval = 600
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func theRedirectsQueryIsReturnedAndOtherPathsAre404() async throws {
        let listener = try LoopbackRedirectListener()
        #expect(listener.port > 0 && listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
        async let query = listener.receive(timeout: 600) { _ in "Sign-in complete <ok>." }
        let (status404, _) = try await get("http://127.0.0.1:\(listener.port)/favicon.ico")
        #expect(status404 == 404)
        let (status400, _) = try await get("http://127.0.0.1:\(listener.port)/callback?code=c", method: "POST")
        #expect(status400 == 400)
        let (status, page) = try await get("http://127.0.0.1:\(listener.port)/callback?code=c%201&state=s")
        #expect(status == 200)
        #expect(page.contains("Sign-in complete &lt;ok&gt;.") && !page.contains("c%201"))
        #expect(try await query == "code=c%201&state=s")
        let (again, repeated) = try await get("http://127.0.0.1:\(listener.port)/callback?code=other&state=s")
        #expect(again == 409 && repeated.contains("already received"))
        await listener.close()
    }

    @Test func aHeldRedirectIsShownOnlyWhatTheCallerAnswersEvenAfterTheIdleLimit() async throws {
        let listener = try LoopbackRedirectListener()
        let browser = Task { try await get("http://127.0.0.1:\(listener.port)/callback?code=c&state=s") }
        let held = try await listener.receiveHeld(timeout: 600)
        #expect(held.query == "code=c&state=s")
        // Longer than the listener's idle limit (5 s): a connection waiting for its answer is not idle.
        try await Task.sleep(for: .seconds(6))
        held.answer("Exchanged & stored.")
        let (status, page) = try await browser.value
        #expect(status == 200 && page.contains("Exchanged &amp; stored."))
        await listener.close()
    }

    @Test func aRedirectBeforeTheWaitIsKept() async throws {
        let listener = try LoopbackRedirectListener()
        let browser = Task { try await get("http://127.0.0.1:\(listener.port)/callback?state=early") }
        // The request reaches the listener before anyone waits (its handler holds it).
        while !listener.inbox.holdsARedirect { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await listener.receive(timeout: 600) { "page for \($0)" } == "state=early")
        #expect(try await browser.value.1.contains("page for state=early"))
        await listener.close()
    }

    @Test func theWaitIsBounded() async throws {
        let listener = try LoopbackRedirectListener()
        let start = ContinuousClock.now
        await #expect(throws: RedirectListenerError.timedOut(seconds: 1)) {
            try await listener.receive(timeout: 1) { _ in "" }
        }
        // The point is that the wait ends at all. Generous: the waiting task is resumed on Swift's
        // cooperative pool, which the whole suite's synchronous tests (processes waited on, blocking store
        // calls) can keep busy for a minute and more on a 2-core machine; the timed-out error is the check.
        #expect(ContinuousClock.now - start < .seconds(600))
        await listener.close()
    }

    /// Bounded at 15 minutes, short of the waits' own hour: a cancellation that does not end them fails. (Under the
    /// address sanitizer, on two cores, this suite's tests have reported 230 s, most of it waiting for a thread.)
    @Test(.timeLimit(.minutes(15))) func cancellingEndsTheWait() async throws {
        let listener = try LoopbackRedirectListener()
        // A wait longer than a busy test process may take to resume this task after its sleep (see `get`): only
        // the cancellation can end it first.
        let task = Task { try await listener.receive(timeout: 3600) { _ in "" } }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: RedirectListenerError.cancelled) { try await task.value }
        let cancelledAtOnce = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await listener.receiveHeld(timeout: 3600)
        }
        await #expect(throws: RedirectListenerError.cancelled) { try await cancelledAtOnce.value }
        await listener.close()
    }

    /// Bounded as the one above.
    @Test(.timeLimit(.minutes(15))) func closingEndsTheWaitAndFreesThePort() async throws {
        let listener = try LoopbackRedirectListener()
        let port = listener.port
        // As long a wait, for the same reason: only the closing can end it first.
        let task = Task { try await listener.receiveHeld(timeout: 3600) }
        try await Task.sleep(for: .milliseconds(100))
        await listener.close()
        await #expect(throws: RedirectListenerError.cancelled) { try await task.value }
        await #expect(throws: RedirectListenerError.cancelled) { try await listener.receiveHeld(timeout: 3600) }
        await #expect(throws: (any Error).self) { try await get("http://127.0.0.1:\(port)/callback") }
    }

    @Test func theBrowserProgramGetsTheURLAsItsOneArgument() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("browser")
        let output = directory.appendingPathComponent("args")
        try ExecutableScript.write("#!/bin/sh\nprintf '%s|' \"$@\" > '\(output.path)'\n", to: script.path)
        let opened = BrowserOpener(environment: ["BROWSER": script.path, "PATH": "/nonexistent"])
            .open(URL(string: "https://id.example.com/authorize?a=1&b=2")!)
        #expect(opened == "browser")
        let text = contents(of: output)
        #expect(text == "https://id.example.com/authorize?a=1&b=2|")
        #expect(BrowserOpener(environment: ["PATH": "/nonexistent"]).open(URL(string: "https://x.example")!) == nil)
    }

    /// Waits up to 30 seconds (a loaded machine spawns slowly) for `file` to hold text.
    func contents(of file: URL) -> String {
        var text = ""
        for _ in 0..<600 where text.isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
            text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        }
        return text
    }

    /// Without `BROWSER`, `xdg-open` on `PATH` is started; the browser's environment has no
    /// `HARDTACK_*` variable nor `PGPASSWORD`, and keeps the rest.
    @Test func xdgOpenIsTheFallbackAndGetsNoSecrets() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xdg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("xdg-open")
        let output = directory.appendingPathComponent("env")
        try ExecutableScript.write(
            "#!/bin/sh\n{ printf '%s\\n' \"$1\"; /usr/bin/env; } > '\(output.path).tmp' && /bin/mv '\(output.path).tmp' '\(output.path)'\n",
            to: script.path)
        let opened = BrowserOpener(environment: [
            "PATH": directory.path, "HARDTACK_PASSPHRASE": "correct-horse", "PGPASSWORD": "pg-secret",
            "HARDTACK_STORE": "postgresql://u:pw@127.0.0.1/db", "LANG": "C.UTF-8",
        ]).open(URL(string: "https://id.example.com/authorize")!)
        #expect(opened == "xdg-open")
        let text = contents(of: output)
        #expect(text.hasPrefix("https://id.example.com/authorize\n"))
        #expect(text.contains("LANG=C.UTF-8"))
        #expect(!text.contains("correct-horse") && !text.contains("pg-secret") && !text.contains("HARDTACK_"))
    }
}
