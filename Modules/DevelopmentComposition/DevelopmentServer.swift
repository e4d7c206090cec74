public import Foundation
import Data
import DevelopmentServers
public import MicroHTTPD

/// `hardtack serve`: the embedded auth server over real HTTP/1.1 on 127.0.0.1, so that several
/// processes, curl, or tests can use it. A development server: loopback only, plain HTTP, bounded
/// requests (``limits``), state in memory. The HTTP side is libmicrohttpd (``MicroHTTPServer``), as
/// under the gateway: the request reaches the auth server with its `Host`, which names the issuer.
public final class DevelopmentServer: Sendable {
    /// The bounds of `hardtack serve`: heads up to 16 KiB (431 beyond), bodies up to 64 KiB (413 beyond),
    /// 64 connections at once, a client silent for 5 s dropped, two threads.
    public static let limits = MicroHTTPServerLimits(
        requestHeadBytes: 16 * 1024, requestBodyBytes: 64 * 1024, connections: 64, idleSeconds: 5, threads: 2)

    private let server: MicroHTTPServer
    private let auth: EmbeddedAuthServer

    /// The bound port.
    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        // A literal address and a number always make a valid URL.
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts serving on 127.0.0.1:`port` (0 for any free port).
    /// - Parameters:
    ///   - accessTokenLifetime: seconds an access token lives.
    ///   - refreshedAccessTokenLifetime: seconds an access token issued by a refresh lives, when not
    ///     `accessTokenLifetime`.
    ///   - refreshTokenInBody: header-style replies put the refresh token in the JSON body, not a header.
    ///   - bareAuthorization: header-style replies write the bare access token, without `Bearer `.
    ///   - confidentialClients: client ids and secrets of confidential clients (a gateway) it also knows.
    ///   - limits: the bounds every client is held to (tests narrow them).
    /// - Throws: a message saying why the port cannot be used.
    public init(
        port: UInt16, accessTokenLifetime: TimeInterval, refreshedAccessTokenLifetime: TimeInterval? = nil,
        refreshTokenInBody: Bool, bareAuthorization: Bool, confidentialClients: [String: String] = [:],
        limits: MicroHTTPServerLimits = DevelopmentServer.limits
    ) throws(DevelopmentServerError) {
        var options = AuthServerOptions(
            accessTokenLifetime: accessTokenLifetime, refreshTokenPlacement: refreshTokenInBody ? .body : .header,
            authorizationStyle: bareAuthorization ? .bare : .bearer)
        options.refreshedAccessTokenLifetime = refreshedAccessTokenLifetime
        options.clientIDs.formUnion(confidentialClients.keys)
        options.clientSecrets = confidentialClients
        let auth = EmbeddedAuthServer(options: options, clock: .live())
        self.auth = auth
        do throws(MicroHTTPServerError) {
            server = try MicroHTTPServer(host: "127.0.0.1", port: port, limits: limits) { request in
                request.headers["Host"] == nil ? Self.hostRequired : await auth.handle(request)
            }
        } catch {
            throw DevelopmentServerError(message: error.description)
        }
    }

    /// The answer to a request without `Host` (RFC 9112 §3.2 asks it of HTTP/1.1, and the HTTP server refuses
    /// such a request itself; here an HTTP/1.0 request needs it too, as it names the issuer).
    static var hostRequired: HTTPResponse {
        HTTPResponse(
            status: 400, headers: HTTPHeaders([("Content-Type", "application/json"), ("Connection", "close")]),
            body: Data(#"{"error":"invalid_request","error_description":"a Host header is required"}"#.utf8))
    }

    /// Sets the device flow's polling interval (5 s by default).
    public func setDevicePollingInterval(_ seconds: TimeInterval) async {
        await auth.setDevicePollingInterval(seconds)
    }

    /// Stops accepting connections, lets the requests in progress finish (for up to 5 s; any still
    /// waiting then is answered 503), and frees the port.
    public func stop() async {
        await server.stop(grace: .seconds(5))
    }
}
