import Foundation
import TestSupport
import Testing

/// `hardtack gateway` refusing to start: each refusal says which setting is wrong, with the right exit
/// status, and leaves nothing behind.
@Suite struct GatewayStartTests {
    let sandbox = CLISandbox()

    func secretFile() -> String {
        let path = sandbox.directory.file("client-secret")
        _ = FileManager.default.createFile(
            atPath: path, contents: Data("s3cret-value\n".utf8), attributes: [.posixPermissions: 0o600])
        return path
    }

    func arguments(issuer: String = "http://127.0.0.1:1", origin: String = "http://127.0.0.1:8443") -> [String] {
        [
            "gateway", "--issuer", issuer, "--client-id", "app", "--client-secret-file", secretFile(),
            "--public-origin", origin, "--listen", "127.0.0.1:0", "--store", sandbox.store,
        ]
    }

    @Test func missingOrUnusableSettingsAreUsageErrorsBeforeAnythingStarts() throws {
        let none = try sandbox.run(["gateway"])
        #expect(none.status == 2 && none.stderr.contains("give the issuer: --issuer URL"), "\(none.stderr)")
        let plainHTTP = try sandbox.run(arguments(origin: "http://app.example"))
        #expect(plainHTTP.status == 2 && plainHTTP.stderr.contains("--public-origin"), "\(plainHTTP.stderr)")
        let route = try sandbox.run(arguments() + ["--route", "/bff/=http://127.0.0.1:1/"])
        #expect(route.status == 2 && route.stderr.contains("--route takes PREFIX=UPSTREAM"), "\(route.stderr)")
        let scope = try sandbox.run(arguments() + ["--scope", "profile offline_access"])
        #expect(scope.status == 2 && scope.stderr.contains("--scope must include openid"), "\(scope.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }

    @Test func anIssuerThatCannotBeReachedIsNamedAndNoStoreIsMade() throws {
        let result = try sandbox.run(arguments())
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("discovery document (http://127.0.0.1:1/.well-known/openid-configuration)"))
        #expect(result.stderr.contains("Check --issuer") && !result.stderr.contains("session is kept"))
        #expect(!result.stderr.contains("s3cret-value") && result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
    }
}
