import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `hardtack gateway --demo`: what a newcomer runs first, with no provider of their own.
@Suite(.timeLimit(.minutes(3))) struct GatewayDemoTests {
    let sandbox = CLISandbox()

    @Test func theDemoServesItsPageSignsAliceInForwardsACallAndLeavesNothingBehind() async throws {
        let executable = try #require(HardtackExecutable.path)
        let temporary = sandbox.directory.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        let demo = try sandbox.launch(executable, ["gateway", "--demo"], environment: ["TMPDIR": temporary])
        // The address comes first, the advice on the next line: both are waited for (60 s at most, a bound
        // only against a hang).
        let out =
            try await demo.awaitOutput { $0.outputSoFar.contains("alice / wonderland") ? $0.outputSoFar : nil }
            ?? demo.outputSoFar
        let origin = out.split(separator: "\n").first { $0.hasPrefix("listening on ") }.map {
            String($0.dropFirst("listening on ".count))
        }
        let address = try #require(
            origin, "the demo did not start: stdout: \(out); stderr: \(FileBytes.read(demo.errPath).count) bytes")
        #expect(out.contains("sign in as alice / wonderland"), "\(out)")

        let made = try FileManager.default.contentsOfDirectory(atPath: temporary)
        #expect(made.count == 1 && made[0].hasPrefix("hardtack-gateway-demo-"), "\(made)")
        let mode = try FileManager.default.attributesOfItem(atPath: temporary + "/" + made[0])[.posixPermissions]
        #expect(mode as? Int == 0o700)

        let browser = TestBrowser()
        let page = try await browser.get(address + "/")
        #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("Hardtack gateway"))
        let config = try await browser.get(address + "/config.js")
        #expect(String(decoding: config.body, as: UTF8.self).contains("\"/api/me\""))
        let back = try await browser.signIn(gateway: address, user: "alice", password: "wonderland", returnUrl: "/")
        #expect(back.status == 302 && back.headers["Location"] == "/")
        let me = try await browser.get(address + "/api/me", headers: [("X-CSRF", "1")])
        #expect(me.status == 200, "\(String(decoding: me.body, as: UTF8.self))")
        let claims = try JSONSerialization.jsonObject(with: me.body) as? [String: String]
        #expect(claims?["sub"] == "alice")
        // The page's "20 calls at once" calls the same API with a query each (`?call=N`).
        let burst = try await browser.get(address + "/api/me?call=7", headers: [("X-CSRF", "1")])
        #expect(burst.status == 200, "\(String(decoding: burst.body, as: UTF8.self))")

        let ended = await sandbox.stopGateway(demo)
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "the temporary store is deleted")
        #expect(!ended.stderr.contains(browser.cookies(for: address)["__Host-hardtack"] ?? "no cookie"))
    }
}
