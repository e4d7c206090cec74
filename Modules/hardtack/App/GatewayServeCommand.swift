import CommandLineKit
import Composition
import Data
import Domain
import Foundation
import DevelopmentComposition
import Gateway

/// `hardtack gateway [serve]`: runs the gateway's server until SIGTERM or SIGINT.
struct GatewayServeCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "serve",
        abstract: "Run the gateway (what `hardtack gateway OPTIONS` does).", discussion: GatewayCommand.discussion,
        exitStatuses: ExitStatus.appTable)

    /// The server's options.
    @OptionGroup var serve: GatewayServeOptions
    /// The store.
    @OptionGroup(title: "Store options") var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        if serve.demo { return try await runDemo() }
        let settings = try GatewaySettings(serve, context)
        let storeConfiguration = try store.configuration(context)
        // Before the store and the server open theirs.
        let descriptorsWanted = GatewayServer.descriptorsWanted(for: settings.configuration)
        let descriptors = DescriptorLimit.raise(toFit: descriptorsWanted)
        let server: GatewayServer
        do throws(GatewayStartFailure) {
            server = try await GatewayServer(
                settings.configuration, store: storeConfiguration, host: settings.host, port: settings.port,
                log: { line in Console.requestLog.write(line: line) })
        } catch {
            switch error {
            case .store(let failure): throw .store(failure)
            case .discovery(let failure):
                let reason: String
                switch failure {
                case .temporarilyUnavailable(let why), .invalidResponse(let why), .unsupported(let why): reason = why
                case .rejected(let status, let why): reason = "HTTP \(status): \(why)"
                default: reason = failure.description
                }
                throw .finding(
                    ExitStatus(failure),
                    "the issuer's discovery document (\(settings.configuration.issuer.absoluteString)"
                        + "/.well-known/openid-configuration) could not be read: \(reason). Check --issuer and that "
                        + "the issuer is up; nothing was started and no store was made.")
            case .auth(.unsupported(Gateway.noRevocationEndpoint)):
                throw .finding(.failure, Gateway.noRevocationEndpoint + ": start without --revoke-ended-sessions")
            case .auth(let failure): throw .auth(failure)
            case .listen(let reason): throw .finding(.failure, "\(reason). Choose another --listen address.")
            }
        }
        let metadata = server.gateway.issuerMetadata
        var said = [
            "issuer \(metadata.issuer): sign-out at the issuer \(metadata.endSessionEndpoint == nil ? "not offered" : "offered"), "
                + "back-channel logout \(metadata.backchannelLogoutSupported ? "offered" : "not offered"), "
                + (metadata.revocationEndpoint == nil
                    ? "token revocation not offered (a sign-out deletes the session's tokens but cannot revoke them)"
                    : "token revocation offered")
                + (settings.configuration.revokeEndedSessions
                    ? "; sessions ended without their cookie are revoked there (copies of refresh tokens kept under the store's key)"
                    : "")
        ]
        let unlisted = metadata.unlistedScopes(of: settings.configuration.scope)
        if !unlisted.isEmpty {
            said.append(
                "warning: the issuer's discovery does not list \(unlisted.joined(separator: " ")) among its scopes; "
                    + "if it then issues no refresh token, sign-ins fail (\"no refresh_token in the reply\"): "
                    + "set --scope to what it asks for refresh tokens")
        }
        if let descriptors, descriptors.soft < descriptorsWanted {
            said.append(
                "warning: this process may open \(descriptors.soft) files at once (hard limit \(descriptors.hard)), fewer "
                    + "than the \(descriptorsWanted) that \(settings.configuration.maxConnections) connections, their "
                    + "upstream calls and the connections kept for reuse may need: past it, connections wait and upstream "
                    + "calls fail (502). Raise the limit (ulimit -n and -Hn, systemd's LimitNOFILE=) or lower "
                    + "--max-connections")
        }
        // Caught before the ready line, so that a SIGTERM sent on reading it is not lost.
        let termination = Signals.catchTermination()
        // One write, so that whoever reads the start line has the warning too.
        Console.error(said.joined(separator: "\nhardtack: "))
        Console.print("listening on \(server.listeningURL)")
        await termination.wait()
        // Before the words that say so: whoever reads them knows that no sweep or revocation that looks after
        // this starts a send.
        server.gateway.beginStopping()
        await Self.stop(after: termination, saying: Self.stopping, { await server.stop(grace: .seconds(10)) }) {
            Self.stoppedAtOnce(inFlight: server.requestsInFlight, inHand: server.gateway.requestsInHand)
        }
    }

    /// What the gateway says as it begins to stop.
    static let stopping =
        "stopping: requests in flight may finish for 10 s, then those still being handled (a refresh storing its "
        + "tokens, a call waiting on its upstream) and a sweep's or a back-channel logout's revocations under way for up to 60 s"

    /// What the gateway says when a second signal cut its stop short: what was left, and what that may cost.
    static func stoppedAtOnce(inFlight: Int, inHand: Int) -> String {
        let said = "stopped at once at a second signal"
        guard inFlight > 0 || inHand > 0 else { return said + "; nothing was in flight" }
        return said + ", with \(inFlight) request\(inFlight == 1 ? "" : "s") in flight and \(inHand) being handled "
            + "(requests answered or not, sweeps, revocations)"
            + (inHand == 0
                ? ""
                : ": a refresh among them (if any) may have lost the new tokens the issuer gave it, and that user will have "
                    + "to sign in again")
    }

    /// After a first signal, says `stopping` and runs `stop`; at a second, says `cut()` and exits 130 at once,
    /// as a kill would: `exit`'s handlers (OpenSSL's cleanup among them) would run under threads still using
    /// what they free. A store's write cut so is a transaction, rolled back.
    private static func stop(
        after termination: Signals.Termination, saying stopping: String, _ stop: @escaping @Sendable () async -> Void,
        cut: () -> String
    ) async {
        // Without the pipe the handler writes to, only the stop ends the wait: nothing to offer.
        let again = termination.readEnd == nil ? "" : "; SIGINT or SIGTERM again, a second or more from now, stops at once"
        Console.error(stopping + again)
        guard await termination.stop(stop) else {
            Console.error(cut())
            _exit(ExitStatus.interrupted.rawValue)
        }
    }

    /// `--demo`: starts ``GatewayDemo`` and says how to use it.
    private func runDemo() async throws(CommandFailure) {
        let demo: GatewayDemo
        do throws(DevelopmentServerError) {
            demo = try await GatewayDemo(log: { line in Console.log(line) })
        } catch {
            throw .finding(.failure, "the gateway demo could not start: \(error.message)")
        }
        let termination = Signals.catchTermination()
        Console.print("listening on \(demo.gateway.listeningURL)")
        Console.print(
            "Open \(demo.address) in a browser and sign in as alice / wonderland; the page holds only a session "
                + "cookie, and its API calls go to \(demo.authServer.baseURL.absoluteString)/api/me with the token "
                + "the gateway adds. Stop with Ctrl-C (the temporary store is deleted).")
        await termination.wait()
        await Self.stop(after: termination, saying: "stopping the demo", { await demo.stop() }) {
            // Its store held only the demo's own users: deleted with the rest, as a finished stop does.
            do {
                try FileManager.default.removeItem(atPath: demo.directory)
                return "stopped at once at a second signal; the demo's temporary directory is deleted"
            } catch {
                return "stopped at once at a second signal; delete the demo's temporary directory, \(demo.directory)"
            }
        }
    }
}
