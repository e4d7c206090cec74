#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CommandLineKit
import Composition
import Data
import DevelopmentComposition
import Dispatch
import Domain
import Foundation

/// `hardtack serve`: the embedded auth server on a loopback port, until interrupted.
struct ServeCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "serve",
        abstract: "Run the embedded auth server on 127.0.0.1 over HTTP/1.1 (a development server).",
        discussion: [
            "A DEVELOPMENT server: plain HTTP on the loopback interface only, request heads up to 16 KiB and bodies "
                + "up to 64 KiB, users and tokens in memory (alice / wonderland; client id hardtack-cli, and any "
                + "--confidential-client, such as a gateway's). It speaks "
                + "both contracts: POST /oauth/token, /oauth/revoke, /auth/signin[/PROVIDER], /auth/refresh, "
                + "GET /api/me, and GET /debug/stats (counters, for tests). Never expose it to a network.",
            "It prints `listening on http://127.0.0.1:PORT` once ready and runs until SIGINT or SIGTERM.",
        ],
        exitStatuses: ExitStatus.appTable)

    /// `--port N`: the port on the loopback interface, if given.
    @Option(
        "--port", value: "N", help: "The port on 127.0.0.1 (default: 8080; 0 picks a free one).", range: 0...65535,
        invalidValue: "--port takes a whole number from 0 to 65535")
    var port: Int?
    /// `--access-token-lifetime SECONDS`: how long access tokens live, if given.
    @Option(
        "--access-token-lifetime", value: "SECONDS", help: "How long access tokens live (default: 300).",
        range: 1...86_400, invalidValue: "--access-token-lifetime takes a whole number from 1 to 86400")
    var lifetime: Int?
    /// `--refreshed-access-token-lifetime SECONDS`: how long access tokens issued by a refresh live, if given.
    @Option(
        "--refreshed-access-token-lifetime", value: "SECONDS",
        help: "How long access tokens issued by a refresh live (default: as --access-token-lifetime).",
        range: 1...86_400, invalidValue: "--refreshed-access-token-lifetime takes a whole number from 1 to 86400")
    var refreshedLifetime: Int?
    /// `--device-interval SECONDS`: device flow, seconds between polls, if given.
    @Option(
        "--device-interval", value: "SECONDS",
        help: "Device flow: seconds between polls the server asks for (default: 5).", range: 1...60,
        invalidValue: "--device-interval takes a whole number from 1 to 60")
    var pollingInterval: Int?
    /// `--refresh-token-in-body`: header style, the refresh token in the body.
    @Flag("--refresh-token-in-body", help: "Header style: send the refresh token as `refreshToken` in the JSON body.")
    var refreshTokenInBody: Bool
    /// `--bare-authorization`: header style, no `Bearer ` prefix.
    @Flag("--bare-authorization", help: "Header style: send the access token without the `Bearer ` prefix.")
    var bareAuthorization: Bool
    /// `--confidential-client ID=SECRETFILE`, repeatable: confidential clients (a gateway) it also knows.
    @Option(
        "--confidential-client", value: "ID=SECRETFILE",
        help: "Also know a confidential client (a gateway, such as hardtack gateway's), its secret the first line of "
            + "SECRETFILE (mode 0600); repeat for more.", allowsEmpty: false)
    var confidentialClients: [String]

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let clients = try confidentialClientSecrets(context)
        let server: DevelopmentServer
        do throws(DevelopmentServerError) {
            server = try DevelopmentServer(
                port: UInt16(port ?? 8080), accessTokenLifetime: TimeInterval(lifetime ?? 300),
                refreshedAccessTokenLifetime: refreshedLifetime.map(TimeInterval.init),
                refreshTokenInBody: refreshTokenInBody, bareAuthorization: bareAuthorization,
                confidentialClients: clients)
        } catch {
            throw .finding(.failure, "\(error). Choose another --port.")
        }
        await server.setDevicePollingInterval(TimeInterval(pollingInterval ?? 5))
        let termination = Signals.catchTermination()  // before the ready line: a SIGTERM sent on it is kept
        Console.print("listening on \(server.baseURL.absoluteString)")
        await termination.wait()
        await server.stop()
    }

    /// Each `--confidential-client ID=SECRETFILE` as id and secret, the secret read from its file.
    /// - Throws: ``CommandFailure/usage(_:)`` for a malformed or repeated one; ``CommandFailure/store(_:)``
    ///   when a secret file cannot be read or others may read it.
    private func confidentialClientSecrets(_ context: CommandContext) throws(CommandFailure) -> [String: String] {
        var clients: [String: String] = [:]
        for text in confidentialClients {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw context.usage("--confidential-client takes ID=SECRETFILE, such as hardtack-gateway=./client-secret")
            }
            let id = String(parts[0])
            guard clients[id] == nil else { throw context.usage("--confidential-client: the client \(id) is given twice") }
            let secret: SecretBytes
            do throws(SecureStoreError) {
                secret = try PassphraseFile.readFirstLine(String(parts[1]))
            } catch {
                throw .store(error)
            }
            guard let text = secret.revealedString() else {
                throw context.usage("--confidential-client: the secret of \(id) is not UTF-8 text")
            }
            clients[id] = text
        }
        return clients
    }
}
