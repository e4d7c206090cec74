import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `hardtack gateway` against `hardtack serve --confidential-client`: the embedded auth server as a process
/// of its own, as `Tools/gateway-bench` runs it, with the gateway's client registered from a secret file.
@Suite(.timeLimit(.minutes(3))) struct GatewayAgainstServeTests {
    let sandbox = CLISandbox()

    /// Writes `text` and a newline to a file of the sandbox with `mode`; its path.
    func secretFile(_ name: String, _ text: String, mode: Int = 0o600) -> String {
        let path = sandbox.directory.file(name)
        _ = FileManager.default.createFile(
            atPath: path, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: mode])
        return path
    }

    @Test func aGatewaySignsAliceInAtServeAndForwardsToItsAPI() async throws {
        let secret = secretFile("serve-client-secret", CLISandbox.gatewayClient.secret)
        let (server, issuer) = try await sandbox.startServer([
            "--confidential-client", "\(CLISandbox.gatewayClient.id)=\(secret)", "--access-token-lifetime", "3600",
        ])
        defer { server.process.terminate(); _ = server.waitAfterStop() }
        let (gateway, origin) = try await sandbox.startGateway(issuer: issuer, routes: ["/api/=\(issuer)/api/"])
        defer { _ = sandbox.stopGatewayNow(gateway) }
        // Written before `listening on`, though on another pipe, in one write with any warning: bounded at
        // 60 s only against a hang.
        let said = try await gateway.awaitOutput { $0.errorsSoFar.contains("offered") ? $0.errorsSoFar : nil } ?? ""
        #expect(said.contains("back-channel logout not offered, token revocation offered"), "\(said)")
        #expect(!said.contains("warning:"), "serve lists offline_access among its scopes: \(said)")
        let browser = TestBrowser()
        let back = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland", returnUrl: "/")
        #expect(back.status == 302 && back.headers["Location"] == "/")
        let me = try await browser.get(origin + "/api/me", headers: [("X-CSRF", "1")])
        #expect(me.status == 200, "\(String(decoding: me.body, as: UTF8.self))")
        let claims = try JSONSerialization.jsonObject(with: me.body) as? [String: String]
        #expect(claims?["sub"] == "alice")
        #expect(try await TestBrowser().get(origin + "/api/me", headers: [("X-CSRF", "1")]).status == 401, "no cookie")
    }

    @Test func aConfidentialClientNeedsIDEqualsAPrivateFile() async throws {
        for value in ["hardtack-gateway", "=file", "hardtack-gateway="] {
            let result = try await sandbox.run(["serve", "--port", "0", "--confidential-client", value])
            #expect(result.status == 2 && result.stderr.contains("ID=SECRETFILE"), "\(value): \(result.stderr)")
        }
        let secret = secretFile("shared-secret", "a-secret-others-can-read", mode: 0o644)
        let readable = try await sandbox.run(["serve", "--port", "0", "--confidential-client", "gateway=\(secret)"])
        #expect(readable.status != 0 && readable.stderr.contains("chmod 600"), "\(readable.stderr)")
        #expect(!readable.stderr.contains("a-secret-others-can-read") && !readable.stdout.contains("a-secret"))
        let missing = try await sandbox.run([
            "serve", "--port", "0", "--confidential-client", "gateway=\(sandbox.directory.file("none"))",
        ])
        #expect(missing.status != 0 && missing.stderr.contains("cannot read"), "\(missing.stderr)")
        let twice = secretFile("twice", "s")
        let repeated = try await sandbox.run([
            "serve", "--port", "0", "--confidential-client", "g=\(twice)", "--confidential-client", "g=\(twice)",
        ])
        #expect(repeated.status == 2 && repeated.stderr.contains("given twice"), "\(repeated.stderr)")
    }
}
