#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
public import Composition
import Domain
import Foundation
import Gateway
import StoreCore

/// `hardtack gateway --demo`: the gateway in front of the embedded auth server (served over HTTP on
/// loopback, with a confidential client for the gateway), its `/api/me` as the upstream, and a small page
/// that signs in, shows the user, calls the API and signs out; everything in a fresh private temporary
/// directory, deleted by ``stop()``.
public final class GatewayDemo: Sendable {
    /// The gateway.
    public let gateway: GatewayServer
    /// The embedded auth server behind it.
    public let authServer: DevelopmentServer
    /// The temporary directory (store, key, client secret, the page).
    public let directory: String
    /// The address to open in a browser.
    public var address: String { gateway.listeningURL + "/" }

    /// Starts the auth server and the gateway on free loopback ports.
    /// - Throws: ``DevelopmentServerError`` naming what could not start.
    public init(log: @escaping @Sendable (String) -> Void) async throws(DevelopmentServerError) {
        let directory = try Self.privateDirectory()
        self.directory = directory
        let secret = Self.randomSecret()
        let page = directory + "/app"
        do throws(DevelopmentServerError) {
            try Self.writePage(to: page)
            authServer = try DevelopmentServer(
                port: 0, accessTokenLifetime: 60, refreshTokenInBody: false, bareAuthorization: false,
                confidentialClients: ["hardtack-gateway": secret])
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        let store = StoreConfiguration(
            storePath: directory + "/keychain.db", key: .keyFile(path: directory + "/keychain.db.key"))
        var lastFailure = "no free port was found"
        // The public origin names the port before the gateway binds it: another process may take it
        // between the probe and the bind, so a few ports are tried.
        for _ in 0..<5 {
            let port = Self.freePort()
            do throws(GatewayStartFailure) {
                gateway = try await GatewayServer(
                    Self.configuration(auth: authServer.baseURL, secret: secret, port: port, page: page),
                    store: store, host: "127.0.0.1", port: port, log: log)
                return
            } catch {
                lastFailure = "\(error)"
                if case .listen = error { continue }
                break
            }
        }
        await authServer.stop()
        try? FileManager.default.removeItem(atPath: directory)
        throw DevelopmentServerError(message: "the gateway could not start: \(lastFailure)")
    }

    /// The gateway's configuration: the embedded server as issuer and upstream (`/api/` to its `/api/`).
    private static func configuration(
        auth: URL, secret: String, port: UInt16, page: String
    ) -> GatewayConfiguration {
        // A loopback http URL with a path that starts and ends with / is always a valid route.
        let route = GatewayRoute(prefix: "/api/", upstream: auth.absoluteString + "/api/")!
        var configuration = GatewayConfiguration(
            issuer: auth, clientID: "hardtack-gateway", clientSecret: SecretBytes(utf8: secret),
            publicOrigin: URL(string: "http://127.0.0.1:\(port)")!, routes: [route], scope: "openid profile",
            staticDirectory: page)
        configuration.idleTimeout = 3600
        return configuration
    }

    /// Stops both servers and deletes the temporary directory.
    public func stop() async {
        await gateway.stop(grace: .seconds(5))
        await authServer.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The demo page (`Modules/DevelopmentComposition/GatewayApp`, a resource of this module) and a
    /// `config.js` that points its API button at the embedded server's `/api/me`.
    private static func writePage(to page: String) throws(DevelopmentServerError) {
        guard let source = Bundle.module.url(forResource: "GatewayApp", withExtension: nil) else {
            throw DevelopmentServerError(message: "the demo page is missing from this build (the GatewayApp resource)")
        }
        do {
            try FileManager.default.copyItem(at: source, to: URL(fileURLWithPath: page))
            try Data("window.HARDTACK_API = \"/api/me\";\n".utf8).write(to: URL(fileURLWithPath: page + "/config.js"))
        } catch {
            throw DevelopmentServerError(message: "the demo page could not be written: \(error.localizedDescription)")
        }
    }

    private static func privateDirectory() throws(DevelopmentServerError) -> String {
        let temporary = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        var template = Array((temporary + "hardtack-gateway-demo-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw DevelopmentServerError(message: "a private temporary directory cannot be made in \(temporary)")
        }
        return String(cString: made)
    }

    private static func randomSecret() -> String {
        (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// A loopback port free now (the gateway's public origin names it before the gateway listens).
    private static func freePort() -> UInt16 {
        #if canImport(Darwin)
            let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #else
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                _ = bind(socket, pointer, length)
                return getsockname(socket, pointer, &length)
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}
