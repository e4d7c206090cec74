import CommandLineKit
import Composition
import Data
import Domain
import Foundation
import Gateway

/// `hardtack gateway`'s settings: each option, else its `HARDTACK_GATEWAY_*` variable, checked once
/// before anything is opened or started.
struct GatewaySettings {
    let configuration: GatewayConfiguration
    let host: String
    let port: UInt16

    /// The settings `command` and the environment give.
    /// - Throws: ``CommandFailure/usage(_:)`` naming what is missing or unusable;
    ///   ``CommandFailure/store(_:)`` when the client secret file cannot be read.
    init(_ command: GatewayServeOptions, _ context: CommandContext) throws(CommandFailure) {
        let environment = context.environment
        func setting(_ option: String?, _ variable: String) -> String? {
            option ?? environment["HARDTACK_GATEWAY_" + variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let issuerText = setting(command.issuer, "ISSUER") else {
            throw context.usage("give the issuer: --issuer URL (or HARDTACK_GATEWAY_ISSUER)")
        }
        guard let issuer = URL(string: issuerText), EndpointURL(issuer) != nil else {
            throw context.usage("--issuer must be an https:// URL (or http:// on a loopback host)")
        }
        guard let clientID = setting(command.clientID, "CLIENT_ID") else {
            throw context.usage("give the client id: --client-id ID (or HARDTACK_GATEWAY_CLIENT_ID)")
        }
        guard let secretFile = setting(command.clientSecretFile, "CLIENT_SECRET_FILE") else {
            throw context.usage("give the client secret's file: --client-secret-file FILE (or HARDTACK_GATEWAY_CLIENT_SECRET_FILE)")
        }
        guard let originText = setting(command.publicOrigin, "PUBLIC_ORIGIN") else {
            throw context.usage("give the origin the browser sees: --public-origin ORIGIN (or HARDTACK_GATEWAY_PUBLIC_ORIGIN)")
        }
        let origin = try Self.origin(originText, context)
        let routeTexts =
            command.routes.isEmpty
            ? (environment["HARDTACK_GATEWAY_ROUTES"] ?? "").split(separator: " ").map(String.init) : command.routes
        var routes: [GatewayRoute] = []
        for text in routeTexts {
            guard let route = GatewayRoute(text) else {
                throw context.usage(
                    "--route takes PREFIX=UPSTREAM: a path prefix that starts and ends with / (not /bff/), and an "
                        + "http(s) URL without query or credentials, such as /api/=https://api.example/v1/")
            }
            guard !routes.contains(where: { $0.prefix == route.prefix }) else {
                throw context.usage("--route: the prefix \(route.prefix) is given twice")
            }
            routes.append(route)
        }
        (host, port) = try Self.address(setting(command.listen, "LISTEN") ?? "127.0.0.1:8443", context)
        let secret: SecretBytes
        do throws(SecureStoreError) {
            secret = try PassphraseFile.readFirstLine(secretFile)
        } catch {
            throw .store(error)
        }
        var configuration = GatewayConfiguration(
            issuer: issuer, clientID: clientID, clientSecret: secret, publicOrigin: origin, routes: routes,
            staticDirectory: setting(command.staticDirectory, "STATIC"))
        if let scope = setting(command.scope, "SCOPE") {
            // Without `openid` there is no ID token: no verified user, no `sid` for back-channel logout.
            guard scope.split(separator: " ").contains("openid") else {
                throw context.usage("--scope must include openid (the gateway verifies the ID token and keys logout on it)")
            }
            configuration.scope = scope
        }
        // The numbers: the option, else its variable, held to the option's own range.
        func number(_ option: Int?, _ variable: String, _ range: ClosedRange<Int>, _ name: String) throws(CommandFailure) -> Int? {
            if let option { return option }
            guard let text = setting(nil, variable) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw context.usage("HARDTACK_GATEWAY_\(variable) takes what \(name) takes: a whole number from \(range.lowerBound)")
            }
            return value
        }
        if let seconds = try number(command.upstreamTimeout, "UPSTREAM_TIMEOUT", 1...600, "--upstream-timeout") {
            configuration.upstreamTimeout = TimeInterval(seconds)
        }
        if let bytes = try number(command.upstreamResponseBytes, "UPSTREAM_RESPONSE_BYTES", 1...(1 << 50), "--upstream-response-bytes") {
            configuration.upstreamResponseBytes = bytes
        }
        if let seconds = try number(command.idleTimeout, "IDLE_TIMEOUT", 0...31_536_000, "--idle-timeout") {
            configuration.idleTimeout = seconds == 0 ? nil : TimeInterval(seconds)
        }
        if let seconds = try number(command.sweepInterval, "SWEEP_INTERVAL", 1...86_400, "--sweep-interval") {
            configuration.sweepInterval = TimeInterval(seconds)
        }
        if let connections = try number(command.storeConnections, "STORE_CONNECTIONS", 1...64, "--store-connections") {
            configuration.storeConnections = connections
        }
        if let threads = try number(command.threads, "THREADS", 1...256, "--threads") { configuration.threads = threads }
        if let connections = try number(command.maxConnections, "MAX_CONNECTIONS", 1...65_536, "--max-connections") {
            configuration.maxConnections = connections
        }
        if let seconds = try number(command.connectionTimeout, "CONNECTION_TIMEOUT", 1...3_600, "--connection-timeout") {
            configuration.connectionTimeout = seconds
        }
        switch command.revokeEndedSessions ? "1" : setting(nil, "REVOKE_ENDED_SESSIONS")?.lowercased() {
        case nil, "0", "no", "false": break
        case "1", "yes", "true": configuration.revokeEndedSessions = true
        default: throw context.usage("HARDTACK_GATEWAY_REVOKE_ENDED_SESSIONS takes 1 or 0 (yes or no)")
        }
        self.configuration = configuration
    }

    /// The public origin: `https://host[:port]`, or `http://` on a loopback host only (a browser keeps a
    /// `Secure` cookie, which every `__Host-` cookie is, only over https or on localhost).
    private static func origin(_ text: String, _ context: CommandContext) throws(CommandFailure) -> URL {
        guard let url = URL(string: text), let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(), !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil
        else {
            throw context.usage("--public-origin takes an origin only, such as https://app.example or http://localhost:8443")
        }
        let loopback = ["localhost", "127.0.0.1", "[::1]", "::1"].contains(host)
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw context.usage(
                "--public-origin must be https (put the gateway behind a TLS proxy): browsers keep its Secure cookie "
                    + "over http only on localhost")
        }
        return url
    }

    /// `HOST:PORT` or `[IPv6]:PORT`.
    private static func address(_ text: String, _ context: CommandContext) throws(CommandFailure) -> (String, UInt16) {
        let usage = context.usage("--listen takes HOST:PORT with an IP address, such as 127.0.0.1:8443 or [::1]:0")
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { throw usage }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw usage }
        return (host, port)
    }
}
