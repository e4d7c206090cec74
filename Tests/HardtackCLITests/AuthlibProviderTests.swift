#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The code flow and the device flow against a real OAuth 2.0 / OpenID Connect server built on
/// Authlib's grant implementations (Tools/OAuthProvider, started by `Tools/oauth-server run`, which
/// `Tools/test` uses, and named in `HARDTACK_TEST_AUTHLIB`): PKCE required by the server, rotating
/// refresh tokens, revocation, userinfo and the device grant, with the session's later commands going
/// to the issuer it remembers. Without the provider the tests fail and say so. Serialized: the tests
/// read the provider's shared counters before and after, which a test running beside would change.
@Suite(.serialized) struct AuthlibProviderTests {
    let sandbox = CLISandbox()

    func issuer() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["HARDTACK_TEST_AUTHLIB"].flatMap { $0.isEmpty ? nil : $0 },
            "HARDTACK_TEST_AUTHLIB is not set: run the tests with Tools/test (it starts the Authlib provider)")
    }

    /// The provider's counters (`GET /test/state`, which never holds a token).
    func state(_ issuer: String) throws -> [String: Int] {
        let data = try Data(contentsOf: try #require(URL(string: issuer + "/test/state")))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["counters"] as? [String: Int])
    }

    /// The provider's per-client counters for `client` (`refreshes`, `revocations`, `reuse_detections`,
    /// `tokens_issued`): what other suites' clients (the gateway's) do meanwhile does not count here.
    func state(_ issuer: String, client: String) throws -> [String: Int] {
        let data = try Data(contentsOf: try #require(URL(string: issuer + "/test/state")))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var counts: [String: Int] = [:]
        for name in ["refreshes", "revocations", "reuse_detections", "tokens_issued"] {
            counts[name] = (object[name + "_by_client"] as? [String: Int])?[client] ?? 0
        }
        return counts
    }

    func run(_ arguments: [String]) async throws -> CLIResult {
        try await sandbox.run(arguments + ["--store", sandbox.store])
    }

    @Test func theCodeFlowWithPKCEThenMeRefreshAndSignOutAtTheRememberedIssuer() async throws {
        let issuer = try issuer()
        let before = try state(issuer)
        let beforeCLI = try state(issuer, client: "hardtack-cli")
        let browser = try ScriptedBrowser.install(in: sandbox.directory.path)
        let page = sandbox.directory.file("page.html")
        let signIn = try await sandbox.run(
            ["signin", "--flow", "code", "--issuer", issuer, "--store", sandbox.store, "--timeout", "60"],
            environment: ["BROWSER": browser, "SCRIPTED_BROWSER_MODE": "approve", "SCRIPTED_BROWSER_PAGE": page])
        #expect(signIn.status == 0, "\(signIn.stderr)")
        #expect(signIn.stdout.contains("signed in as Alice Liddell (alice)"))
        #expect(signIn.stderr.contains("code_challenge_method=S256"))
        // No --server from here on: the session remembers its issuer's endpoints.
        let me = try await run(["me"])
        #expect(me.status == 0 && me.stdout.contains("Alice Liddell"), "\(me.stderr)")
        #expect(try await run(["refresh"]).status == 0)
        let signOut = try await run(["signout"])
        #expect(signOut.status == 0 && signOut.stdout.contains("refresh token revoked"), "\(signOut.stdout)")
        #expect(try await run(["status"]).status == 3)
        let after = try state(issuer)
        let afterCLI = try state(issuer, client: "hardtack-cli")
        func grew(_ name: String) -> Int { (after[name] ?? 0) - (before[name] ?? 0) }
        func grewForCLI(_ name: String) -> Int { (afterCLI[name] ?? 0) - (beforeCLI[name] ?? 0) }
        // The gateway's suites may use the same provider meanwhile: the CLI's own counts are exact.
        #expect(grew("codes_exchanged") >= 1 && grew("userinfo_served") >= 1, "\(after)")
        #expect(grewForCLI("refreshes") == 1 && grewForCLI("revocations") == 1, "\(afterCLI)")
        #expect(grewForCLI("tokens_issued") == 2 && grewForCLI("reuse_detections") == 0, "\(afterCLI)")
        for text in [signIn.stdout, signIn.stderr, me.stdout, signOut.stdout] { #expect(!text.contains("eyJ")) }
    }

    @Test func theServerRefusesAnAuthorizationRequestWithoutPKCE() throws {
        let issuer = try issuer()
        let url = try #require(
            URL(
                string: issuer + "/authorize?response_type=code&client_id=hardtack-cli"
                    + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&scope=openid&state=s"))
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        final class NoRedirect: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
            // Safety: no state; the session calls it on its own queue only.
            func urlSession(
                _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
            ) { completionHandler(nil) }
        }
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirect(), delegateQueue: nil)
        let semaphore = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var location = ""
        session.dataTask(with: request) { _, response, _ in
            location = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location") ?? ""
            semaphore.signal()
        }.resume()
        semaphore.wait()
        // Refused back to the client: no sign-in form without a code challenge.
        #expect(location.contains("error=invalid_request"), "\(location)")
    }

    /// Starts a device sign-in, reads its user code, and decides on the provider's verification page.
    func deviceSignIn(_ issuer: String, decision: String, extra: [String] = []) async throws -> CLIResult {
        let executable = try #require(HardtackExecutable.path)
        let running = try sandbox.launch(
            executable, ["signin", "--flow", "device", "--issuer", issuer, "--store", sandbox.store] + extra)
        // Bounded at 60 s only against a hang (see RunningProcess.awaitOutput).
        let userCode = try await running.awaitOutput { running in
            let err = running.errorsSoFar
            return err.range(of: "enter the code ").map { String(err[$0.upperBound...].prefix { !$0.isWhitespace }) }
        }
        let code = try #require(userCode, "no user code; stderr: \(running.errorsSoFar)")
        var request = URLRequest(url: try #require(URL(string: issuer + "/device")))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("user_code=\(code)&username=alice&password=wonderland&decision=\(decision)".utf8)
        let semaphore = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, _, _ in semaphore.signal() }.resume()
        semaphore.wait()
        return await running.wait()
    }

    @Test func theDeviceFlowSignsInUnderTheAccountGivenAndRefreshes() async throws {
        let issuer = try issuer()
        let result = try await deviceSignIn(issuer, decision: "approve", extra: ["--account", "work"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("signed in as Alice Liddell (alice)"))
        #expect(result.stderr.contains("\(issuer)/device"))
        #expect(try await run(["status", "--account", "work"]).status == 0)
        #expect(try await run(["refresh", "--account", "work"]).status == 0)
        let me = try await run(["me", "--account", "work"])
        #expect(me.status == 0 && me.stdout.contains("Alice Liddell"), "\(me.stderr)")
        #expect(!result.stdout.contains("eyJ") && !result.stderr.contains("eyJ"))
    }

    @Test func aDeviceDenialIsExit4AndStoresNothing() async throws {
        let issuer = try issuer()
        let result = try await deviceSignIn(issuer, decision: "deny")
        #expect(result.status == 4, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }
}
