public import Foundation
import Data
import DevelopmentServers

/// `hardtack serve`: the embedded auth server over real HTTP/1.1 on 127.0.0.1, so that several
/// processes, curl, or tests can use it. A development server: loopback only, plain HTTP, bounded
/// requests, state in memory.
public final class DevelopmentServer: Sendable {
    private let server: LoopbackHTTPServer
    private let auth: EmbeddedAuthServer

    /// The bound port.
    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { server.baseURL }

    /// Starts serving on 127.0.0.1:`port` (0 for any free port).
    /// - Parameters:
    ///   - accessTokenLifetime: seconds an access token lives.
    ///   - refreshTokenInBody: header-style replies put the refresh token in the JSON body, not a header.
    ///   - bareAuthorization: header-style replies write the bare access token, without `Bearer `.
    ///   - confidentialClients: client ids and secrets of confidential clients (a gateway) it also knows.
    /// - Throws: a message saying why the port cannot be used.
    public init(
        port: UInt16, accessTokenLifetime: TimeInterval, refreshTokenInBody: Bool, bareAuthorization: Bool,
        confidentialClients: [String: String] = [:]
    ) throws(DevelopmentServerError) {
        var options = AuthServerOptions(
            accessTokenLifetime: accessTokenLifetime, refreshTokenPlacement: refreshTokenInBody ? .body : .header,
            authorizationStyle: bareAuthorization ? .bare : .bearer)
        options.clientIDs.formUnion(confidentialClients.keys)
        options.clientSecrets = confidentialClients
        let auth = EmbeddedAuthServer(options: options, clock: .live())
        self.auth = auth
        do {
            server = try LoopbackHTTPServer(port: port) { request in await auth.handle(request) }
        } catch {
            throw DevelopmentServerError(message: error.description)
        }
    }

    /// Sets the device flow's polling interval (5 s by default).
    public func setDevicePollingInterval(_ seconds: TimeInterval) async {
        await auth.setDevicePollingInterval(seconds)
    }

    /// Stops listening and waits for requests in progress, on a thread of its own so that their
    /// handlers keep the cooperative pool.
    public func stop() async {
        let server = server
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                server.stopAndDrain()
                done.resume()
            }.start()
        }
    }
}
