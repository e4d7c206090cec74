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

    @Test func missingOrUnusableSettingsAreUsageErrorsBeforeAnythingStarts() async throws {
        let none = try await sandbox.run(["gateway"])
        #expect(none.status == 2 && none.stderr.contains("give the issuer: --issuer URL"), "\(none.stderr)")
        let plainHTTP = try await sandbox.run(arguments(origin: "http://app.example"))
        #expect(plainHTTP.status == 2 && plainHTTP.stderr.contains("--public-origin"), "\(plainHTTP.stderr)")
        let route = try await sandbox.run(arguments() + ["--route", "/bff/=http://127.0.0.1:1/"])
        #expect(route.status == 2 && route.stderr.contains("--route takes PREFIX=UPSTREAM"), "\(route.stderr)")
        let idle = try await sandbox.run(arguments(), environment: ["HARDTACK_GATEWAY_IDLE_TIMEOUT": "forever"])
        #expect(idle.status == 2 && idle.stderr.contains("HARDTACK_GATEWAY_IDLE_TIMEOUT takes what --idle-timeout takes"), "\(idle.stderr)")
        let connections = try await sandbox.run(arguments() + ["--store-connections", "0"])
        #expect(connections.status == 2 && connections.stderr.contains("--store-connections takes a whole number from 1 to 64"))
        let threads = try await sandbox.run(arguments() + ["--threads", "0"])
        #expect(threads.status == 2 && threads.stderr.contains("--threads takes a whole number from 1 to 256"))
        let threadsVariable = try await sandbox.run(arguments(), environment: ["HARDTACK_GATEWAY_THREADS": "many"])
        #expect(threadsVariable.status == 2 && threadsVariable.stderr.contains("HARDTACK_GATEWAY_THREADS takes what --threads takes"))
        let most = try await sandbox.run(arguments() + ["--max-connections", "0"])
        #expect(most.status == 2 && most.stderr.contains("--max-connections takes a whole number from 1 to 65536"))
        let mostVariable = try await sandbox.run(arguments(), environment: ["HARDTACK_GATEWAY_MAX_CONNECTIONS": "65537"])
        #expect(mostVariable.status == 2 && mostVariable.stderr.contains("HARDTACK_GATEWAY_MAX_CONNECTIONS takes what --max-connections takes"))
        let quiet = try await sandbox.run(arguments() + ["--connection-timeout", "3601"])
        #expect(quiet.status == 2 && quiet.stderr.contains("--connection-timeout takes a whole number of seconds from 1 to 3600"))
        let quietVariable = try await sandbox.run(arguments(), environment: ["HARDTACK_GATEWAY_CONNECTION_TIMEOUT": "0"])
        #expect(quietVariable.status == 2 && quietVariable.stderr.contains("HARDTACK_GATEWAY_CONNECTION_TIMEOUT takes what --connection-timeout takes"))
        let revoke = try await sandbox.run(arguments(), environment: ["HARDTACK_GATEWAY_REVOKE_ENDED_SESSIONS": "maybe"])
        #expect(revoke.status == 2 && revoke.stderr.contains("HARDTACK_GATEWAY_REVOKE_ENDED_SESSIONS takes 1 or 0"))
        let scope = try await sandbox.run(arguments() + ["--scope", "profile offline_access"])
        #expect(scope.status == 2 && scope.stderr.contains("--scope must include openid"), "\(scope.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }

    @Test func anIssuerThatCannotBeReachedIsNamedAndNoStoreIsMade() async throws {
        let result = try await sandbox.run(arguments())
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("discovery document (http://127.0.0.1:1/.well-known/openid-configuration)"))
        #expect(result.stderr.contains("Check --issuer") && !result.stderr.contains("session is kept"))
        #expect(!result.stderr.contains("s3cret-value") && result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
    }

    /// Every setting from the environment alone, as a container gives them: the gateway gets as far as the
    /// issuer named there.
    @Test func theEnvironmentAloneConfiguresTheGateway() async throws {
        let result = try await sandbox.run(
            ["gateway", "--store", sandbox.store],
            environment: [
                "HARDTACK_GATEWAY_ISSUER": "http://127.0.0.1:2", "HARDTACK_GATEWAY_CLIENT_ID": "app",
                "HARDTACK_GATEWAY_CLIENT_SECRET_FILE": secretFile(), "HARDTACK_GATEWAY_PUBLIC_ORIGIN": "http://localhost:8443",
                "HARDTACK_GATEWAY_LISTEN": "127.0.0.1:0", "HARDTACK_GATEWAY_ROUTES": "/api/=http://127.0.0.1:3/ /b/=http://127.0.0.1:4/",
                "HARDTACK_GATEWAY_SCOPE": "openid", "HARDTACK_GATEWAY_UPSTREAM_TIMEOUT": "5",
                "HARDTACK_GATEWAY_UPSTREAM_RESPONSE_BYTES": "1000", "HARDTACK_GATEWAY_IDLE_TIMEOUT": "0",
                "HARDTACK_GATEWAY_STORE_CONNECTIONS": "3", "HARDTACK_GATEWAY_REVOKE_ENDED_SESSIONS": "yes",
                "HARDTACK_GATEWAY_THREADS": "3", "HARDTACK_GATEWAY_MAX_CONNECTIONS": "50",
                "HARDTACK_GATEWAY_CONNECTION_TIMEOUT": "5",
            ])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("http://127.0.0.1:2/.well-known/openid-configuration"), "\(result.stderr)")
    }

    /// `--revoke-ended-sessions` against an issuer whose discovery names no revocation endpoint (served here
    /// by Python's own HTTP server from a file): refused at start, saying why and how to go on. Without it,
    /// the gateway starts and says that the issuer revokes nothing and does not list the scope it asks for.
    @Test func revokingEndedSessionsNeedsAnIssuerThatRevokes() async throws {
        let port = CLISandbox.freePort()
        let issuer = "http://127.0.0.1:\(port)"
        let root = sandbox.directory.file("issuer")
        try FileManager.default.createDirectory(atPath: root + "/.well-known", withIntermediateDirectories: true)
        let discovery: [String: Any] = [
            "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
            "jwks_uri": issuer + "/jwks", "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"], "scopes_supported": ["openid", "profile"],
        ]
        try JSONSerialization.data(withJSONObject: discovery).write(to: URL(fileURLWithPath: root + "/.well-known/openid-configuration"))
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        // SIGKILL, not terminate(): the child inherits the test process's blocked SIGTERM and would live on.
        defer {
            if server.isRunning {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
        }
        // Bounded at 60 s only against a hang: a busy machine can take seconds to start Python.
        var up = false
        _ = try await Eventually.wait(every: .milliseconds(50)) {
            up = (try? Data(contentsOf: URL(string: issuer + "/.well-known/openid-configuration")!)) != nil
            return up || !server.isRunning
        }
        #expect(up, "python3 -m http.server did not start (\(server.isRunning ? "still running" : "it ended"))")
        let result = try await sandbox.run(arguments(issuer: issuer) + ["--revoke-ended-sessions"])
        #expect(result.status == 1 && result.stdout.isEmpty, "\(result.status) \(result.stdout)")
        #expect(result.stderr.contains("needs the issuer's revocation endpoint (RFC 7009)"), "\(result.stderr)")
        #expect(result.stderr.contains("start without --revoke-ended-sessions"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store), "refused before any store is made")

        // Without the option it starts, and says what the issuer lacks: revocation, and the scope it asks for.
        let (gateway, _) = try await sandbox.startGateway(issuer: issuer, routes: ["/api/=http://127.0.0.1:3/"])
        defer { _ = sandbox.stopGatewayNow(gateway) }
        let said = try await gateway.awaitOutput { $0.errorsSoFar.contains("set --scope") ? $0.errorsSoFar : nil } ?? ""
        #expect(said.contains("token revocation not offered (a sign-out deletes the session's tokens"), "\(said)")
        #expect(said.contains("warning: the issuer's discovery does not list offline_access among"), "\(said)")
    }
}
