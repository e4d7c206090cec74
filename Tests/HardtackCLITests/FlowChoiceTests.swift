import Foundation
import TestSupport
import Testing

/// Which sign-in flow `hardtack signin` takes (RFC 9700: the browser by default), and the warning the
/// password grant earns under the OAuth contract but not under the header-style one, against
/// `hardtack serve`.
@Suite struct FlowChoiceTests {
    let flows = CodeFlowTests()
    var sandbox: CLISandbox { flows.sandbox }

    func passwordSignIn(_ url: String, _ extra: [String]) async throws -> CLIResult {
        try await sandbox.run(
            ["signin", "--server", url, "--store", sandbox.store, "--username", "alice", "--password-stdin"] + extra,
            input: "wonderland\n")
    }

    @Test func thePasswordGrantIsWarnedAboutUnderOAuthOnly() async throws {
        let (server, url) = try await flows.sandbox.startServer()
        defer { flows.stop(server) }
        let oauth = try await passwordSignIn(url, [])
        #expect(oauth.status == 0, "\(oauth.stderr)")
        #expect(oauth.stderr.contains("RFC 9700"), "\(oauth.stderr)")
        let header = try await passwordSignIn(url, ["--style", "header"])
        #expect(header.status == 0, "\(header.stderr)")
        #expect(!header.stderr.contains("RFC 9700"), "\(header.stderr)")
    }

    /// Without `--flow` or a password, sign-in goes through the browser.
    @Test func theDefaultFlowIsTheBrowser() async throws {
        let (server, url) = try await flows.sandbox.startServer()
        defer { flows.stop(server) }
        let browser = try ScriptedBrowser.install(in: sandbox.directory.path)
        let result = try await sandbox.run(
            ["signin", "--issuer", url, "--store", sandbox.store, "--timeout", "60"],
            environment: [
                "BROWSER": browser, "SCRIPTED_BROWSER_MODE": "approve",
                "SCRIPTED_BROWSER_PAGE": sandbox.directory.file("page.html"),
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("code_challenge_method=S256") && !result.stderr.contains("RFC 9700"))
    }

    /// `--password-stdin` alone implies the password flow, which then asks for the username it lacks.
    @Test func passwordStdinAloneImpliesThePasswordFlow() async throws {
        let result = try await sandbox.run(
            ["signin", "--server", "http://127.0.0.1:9", "--store", sandbox.store, "--password-stdin"],
            input: "wonderland\n")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("give --username") && !result.stderr.contains("takes no"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }
}
