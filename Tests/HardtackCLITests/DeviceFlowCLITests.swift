#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `hardtack signin --flow device` end to end against `hardtack serve`: the user code on stderr, the
/// approval (or refusal) given on the server's verification page by "another device", the polling,
/// and the session it stores (or nothing).
@Suite struct DeviceFlowCLITests {
    let flows: CodeFlowTests
    var sandbox: CLISandbox { flows.sandbox }

    init() { flows = CodeFlowTests() }

    /// The flows over another test's sandbox.
    init(sandbox: CLISandbox) { flows = CodeFlowTests(sandbox: sandbox) }

    /// Starts the sign-in, waits for its user code, decides on the verification page, and waits for the end.
    func signIn(_ url: String, decision: String, extra: [String] = []) async throws -> CLIResult {
        let executable = try #require(HardtackExecutable.path)
        let running = try sandbox.launch(
            executable, ["signin", "--flow", "device", "--issuer", url, "--store", sandbox.store] + extra)
        // Bounded at 60 s only against a hang (see RunningProcess.awaitOutput).
        let userCode = try await running.awaitOutput { running in
            let err = running.errorsSoFar
            return err.range(of: "enter the code ").map { String(err[$0.upperBound...].prefix(9)) }
        }
        let code = try #require(userCode, "no user code; stderr: \(running.errorsSoFar)")
        var request = URLRequest(url: try #require(URL(string: url + "/oauth/device")))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("user_code=\(code)&username=alice&password=wonderland&decision=\(decision)".utf8)
        let (page, _) = try await URLSession.shared.data(for: request)
        #expect(String(decoding: page, as: UTF8.self).contains(decision == "approve" ? "Approved" : "Refused"))
        return await running.wait()
    }

    @Test func anApprovedDeviceSignInStoresASession() async throws {
        let (server, url) = try await flows.sandbox.startServer(["--device-interval", "1"])
        defer { flows.stop(server) }
        let result = try await signIn(url, decision: "approve")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("signed in as Alice Liddell (alice)"))
        #expect(result.stderr.contains("\(url)/oauth/device"))
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 0)
        #expect(try await flows.app("me", url).status == 0)
    }

    @Test func aRefusedDeviceSignInIsExit4AndStoresNothing() async throws {
        let (server, url) = try await flows.sandbox.startServer(["--device-interval", "1"])
        defer { flows.stop(server) }
        let result = try await signIn(url, decision: "deny")
        #expect(result.status == 4, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }
}
