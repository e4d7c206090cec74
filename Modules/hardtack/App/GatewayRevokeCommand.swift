import CommandLineKit
import Composition
import Domain
import Gateway

/// `hardtack gateway revoke`: ends a user's sessions, or one session, for every instance.
struct GatewayRevokeCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "revoke", abstract: "End a user's gateway sessions, or one session, on every instance at its next call.",
        discussion: [
            "Deletes the sessions from the store, which every instance reads on each call: the browser's next call "
                + "is 401, whichever instance it reaches. Their refresh tokens are revoked at the issuer by a running "
                + "gateway's next sweep (every --sweep-interval, 5 minutes by default, 500 at a time) when the gateways run "
                + "with --revoke-ended-sessions; "
                + "otherwise they cannot be: they are sealed under keys only the users' cookies give, and deleted with "
                + "the sessions. An access token already sent "
                + "to an API stays valid until it expires, and the user's own session at the issuer goes on, so "
                + "/bff/login may sign them in again without a password: to lock a user out, end their session at "
                + "the issuer too. Ending what is already gone (or a store that does not exist) prints `ended 0 sessions`."
        ],
        exitStatuses: ExitStatus.appTable)

    /// `--user SUB`.
    @Option("--user", value: "SUB", help: "End every session of this user (the issuer's `sub`).", allowsEmpty: false)
    var user: String?
    /// `--session SID`.
    @Option(
        "--session", value: "SID", help: "End this session (its id, as `gateway sessions` and /bff/user show it).",
        allowsEmpty: false)
    var session: String?
    /// The store.
    @OptionGroup(title: "Store options") var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        try GatewayServeOptions.refuseBefore(Self.configuration.name, context)
        guard (user == nil) != (session == nil) else {
            throw .usage("gateway revoke takes exactly one of --user SUB and --session SID")
        }
        let configuration = try store.configuration(context)
        guard await configuration.storeExists else {
            Console.print("ended 0 sessions")
            return
        }
        let admin = GatewaySessionAdmin(store: try await StoreArguments.open(configuration).items)
        let ended: Int
        do throws(AuthenticationError) {
            if let user {
                ended = try await admin.end(user: user).count
            } else {
                ended = try await admin.end(session: session ?? "") ? 1 : 0
            }
        } catch {
            throw .auth(error)
        }
        Console.print("ended \(ended) session\(ended == 1 ? "" : "s")")
    }
}
