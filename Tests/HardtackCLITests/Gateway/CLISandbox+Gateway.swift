import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The issuer `Tools/oauth-server run` names for the project's own Authlib provider, if any.
let authlibIssuer = ProcessInfo.processInfo.environment["HARDTACK_TEST_AUTHLIB"].flatMap { $0.isEmpty ? nil : $0 }

/// `hardtack gateway` for the suites that drive one.
extension CLISandbox {
    /// The gateway's client at the test provider.
    static let gatewayClient = (id: "hardtack-gateway", secret: "gateway-secret")

    /// A port no one listens on now (for a gateway whose public origin must name its port up front).
    static func freePort() -> UInt16 {
        let (socket, port) = RawSocket.silentListener()
        close(socket)
        return port
    }

    /// Starts `hardtack gateway` against `issuer` on a free port of 127.0.0.1 (or `fixed`), its public
    /// origin `http://127.0.0.1:PORT`, with `routes` and `extra` arguments; returns it and its origin once it
    /// listens. A `launcher` (a program and its arguments, such as `prlimit`) runs it, by exec.
    func startGateway(
        issuer: String, routes: [String], store: String? = nil, port fixed: UInt16? = nil, extra: [String] = [],
        environment: [String: String] = [:], launcher: [String] = []
    ) async throws -> (RunningProcess, String) {
        let hardtack = try #require(HardtackExecutable.path)
        let executable = launcher.first ?? hardtack
        let secret = directory.file("client-secret")
        if !FileManager.default.fileExists(atPath: secret) {
            _ = FileManager.default.createFile(
                atPath: secret, contents: Data((Self.gatewayClient.secret + "\n").utf8),
                attributes: [.posixPermissions: 0o600])
        }
        for _ in 0..<5 {
            let port = fixed ?? Self.freePort()
            let origin = "http://127.0.0.1:\(port)"
            var arguments: [String] = launcher.isEmpty ? [] : Array(launcher.dropFirst()) + [hardtack]
            arguments += [
                "gateway", "--issuer", issuer, "--client-id", Self.gatewayClient.id, "--client-secret-file", secret,
                "--listen", "127.0.0.1:\(port)", "--public-origin", origin, "--store", store ?? self.store,
            ]
            for route in routes { arguments += ["--route", route] }
            let gateway = try launch(executable, arguments + extra, environment: environment)
            // Bounded at 60 s only against a hang (see RunningProcess.awaitOutput).
            if try await gateway.awaitOutput({ $0.outputSoFar.contains("listening on ") ? true : nil }) != nil {
                return (gateway, origin)
            }
            let state = gateway.process.isRunning ? "still starting after 60 s" : "it ended"
            gateway.process.terminate()
            let errors = gateway.errorsSoFar
            // Another process took the port between the probe and the bind: try another.
            guard errors.contains("Choose another --listen") else {
                Issue.record("hardtack gateway did not start (\(state)): \(errors)")
                throw CancellationError()
            }
        }
        Issue.record("hardtack gateway found no free port")
        throw CancellationError()
    }

    /// Ends the gateway with SIGTERM and returns how it ended, waiting on a thread of its own (a gateway
    /// finishing what is in flight may take its whole grace).
    func stopGateway(_ gateway: RunningProcess) async -> CLIResult {
        kill(gateway.process.processIdentifier, SIGTERM)
        return await gateway.wait()
    }

    /// Ends the gateway with SIGTERM and waits for it on this thread, for a `defer` (nothing is in flight
    /// there but what the test left).
    func stopGatewayNow(_ gateway: RunningProcess) -> CLIResult {
        kill(gateway.process.processIdentifier, SIGTERM)
        return gateway.waitAfterStop()
    }
}
