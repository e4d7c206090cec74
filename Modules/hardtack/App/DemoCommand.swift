import CommandLineKit
import Composition
import DevelopmentComposition
import Data
import Domain
import Foundation

/// `hardtack demo`: the whole story on the embedded auth server, narrated for a person.
struct DemoCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "demo",
        abstract: "Sign in, auto-login, authorized calls, refresh, a stolen-token replay and sign-out, narrated.",
        discussion: [
            "Runs against the embedded auth server in this process; its clock is moved by hand, so nothing sleeps "
                + "and the demo finishes in well under a second. Tokens are shown redacted: length and a fingerprint "
                + "that only means something within one run."
        ],
        exitStatuses: ExitStatus.appTable)

    /// `--store PATH`: where to keep the store, or `nil` for a temporary one.
    @Option(
        "--store", value: "PATH",
        help: "Keep the demo's store at PATH (default: a fresh temporary store, deleted at the end).")
    var storePath: String?
    /// `--style`, if given.
    @Option(
        "--style", value: "oauth|header",
        help: "Which server contract the embedded server and the app speak (default: oauth).",
        invalidValue: "--style must be oauth or header", convert: { ServerContract(rawValue: $0) })
    var style: ServerContract?

    /// The contract the embedded server and the app speak.
    var contract: ServerContract { style ?? .oauth }

    func validate() throws(UsageError) {
        // The demo keeps its key in a file beside its store: a server URI has no "beside", and its text
        // (with a password) must never become a file name or be printed.
        if let storePath, StoreConfiguration.isPostgreSQL(storePath) {
            throw UsageError(
                "the demo runs on a store file; give a file path (a PostgreSQL store works with the other commands)")
        }
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        try await Demo(storePath: storePath, contract: contract).run()
    }
}

/// The demo's script.
private struct Demo {
    let storePath: String?
    let contract: ServerContract

    func run() async throws(CommandFailure) {
        let started = ContinuousClock.now
        let world: DemoEnvironment
        do throws(SecureStoreError) {
            world = try DemoEnvironment(storePath: storePath, contract: contract)
        } catch {
            throw .store(error)
        }
        defer { world.removeTemporaryFiles() }
        let minutes = Int(world.accessTokenLifetime / 60)
        say("Hardtack demo: sign-in, auto-login, refresh and sign-out against the embedded auth server.")
        say(
            "Store:  \(world.storePath)\n        "
                + (world.isTemporary
                    ? "(a fresh temporary store, deleted at the end; --store PATH keeps one)"
                    : "(kept after the demo)"))
        say(
            "Server: embedded in this process, \(contract == .oauth ? "OAuth 2.0" : "header-style") contract; "
                + "access tokens live \(minutes) min.\n        (Its clock is moved by hand: nothing sleeps."
                + (contract == .oauth ? " The http://127.0.0.1/… addresses it names below are not a port to open." : "")
                + ")\n")

        step(1, "Launch")
        var app = try await launch(world)
        let launched = await app.validateAuthentication()
        if !world.isTemporary && launched != .signedOut {
            throw .usage(
                "the store at \(world.storePath) already holds a session, which the demo would replace and then "
                    + "delete. Give another --store, or none for a temporary one.")
        }
        await status(app)

        let credentials = Credentials.password(
            username: DemoEnvironment.credentials.username, password: SecretBytes(utf8: DemoEnvironment.credentials.password))
        let first: Session
        if contract == .oauth {
            step(2, "Sign in through the browser: authorization code + PKCE over a loopback redirect (RFC 9700, RFC 8252)")
            let signIn = try await auth { () async throws(AuthenticationError) in try await world.signInThroughBrowser(into: app) }
            for line in signIn.steps { detail(line) }
            first = signIn.session
        } else {
            step(2, "Sign in as \(DemoEnvironment.credentials.username) (the header-style contract signs in with a password)")
            first = try await auth { () async throws(AuthenticationError) in try await app.signIn(credentials) }
        }
        detail("access token:  \(Redaction.token(first.accessToken.value))" + expiry(first.accessToken))
        detail("refresh token: \(Redaction.token(first.refreshToken.value))")
        detail("both written to the encrypted store in one transaction")

        step(3, "Relaunch (a new process would do exactly this)")
        app = try await launch(world)
        await status(app)

        step(4, "Authorized call: GET /api/me with Authorization: Bearer ••••")
        let user = try await auth { () async throws(AuthenticationError) in try await app.currentUser() }
        detail("→ \(user.name) (\(user.id))")

        step(5, "\(minutes + 1) minutes pass")
        world.advanceClock(by: world.accessTokenLifetime + 60)
        await status(app)

        step(6, "The next call refreshes by itself")
        _ = try await auth { () async throws(AuthenticationError) in try await app.currentUser() }
        let afterFirstRefresh = try await loadSession(app)
        if await world.serverCounters().unauthorized > 0 {
            detail("the server refused the expired token (401), so the app refreshed once and retried")
        } else {
            detail("the access token was known to be expired, so it was refreshed before the call")
        }
        detail("new refresh token: \(Redaction.token(afterFirstRefresh.refreshToken.value)) (rotated, stored first)")
        detail("server refreshes so far: \(await world.serverCounters().refreshes)")

        step(7, "\(minutes + 1) more minutes; then 50 calls at once")
        world.advanceClock(by: world.accessTokenLifetime + 60)
        let before = await app.refreshSession.refreshCount
        let calls = try await concurrentCalls(app, count: 50)
        let shared = await app.refreshSession.refreshCount - before
        detail("\(calls) calls succeeded; they shared \(shared) refresh (server refreshes so far: "
            + "\(await world.serverCounters().refreshes))")

        step(8, "A thief replays the refresh token stolen at step 2")
        let replay = await world.replayStolenRefreshToken(of: first, through: app)
        let counters = await world.serverCounters()
        switch replay {
        case .success: detail("the server accepted it (it should not have)")
        case .failure: detail("server: refused; it saw a rotated token come back (reuse detections: \(counters.reuseDetections))")
        }
        detail("a reused refresh token revokes its whole family, so the real session is dead too:")
        do throws(AuthenticationError) {
            _ = try await app.currentUser()
            detail("the next call still worked (it should not have)")
        } catch {
            detail("next call: 401 → one refresh → refused → \(error)")
        }
        await status(app)

        if contract == .oauth {
            step(9, "Sign in again on a machine without a browser (device grant, RFC 8628), then sign out")
            let again = try await auth { () async throws(AuthenticationError) in try await world.signInWithDevice(into: app) }
            for line in again.steps { detail(line) }
        } else {
            step(9, "Sign in again, then sign out")
            _ = try await auth { () async throws(AuthenticationError) in try await app.signIn(credentials) }
        }
        await status(app)
        let result = try await auth { () async throws(AuthenticationError) in try await app.signOut() }
        detail("server: \(result.revocation == .revoked ? "refresh token revoked" : "\(result.revocation)")")
        detail("local:  \(result.deletedLocalSession ? "session deleted" : "no session was stored")")
        await status(app)

        let elapsed = ContinuousClock.now - started
        say(String(format: "\nDone in %.2f s.", Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)))
    }

    private func launch(_ world: DemoEnvironment) async throws(CommandFailure) -> AppContainer {
        do throws(SecureStoreError) {
            return try await world.launch()
        } catch {
            throw .store(error)
        }
    }

    private func loadSession(_ app: AppContainer) async throws(CommandFailure) -> Session {
        let session = try await auth { () async throws(AuthenticationError) in try await DemoEnvironment.storedSession(in: app) }
        guard let session else { throw .auth(.notSignedIn) }
        return session
    }

    private func concurrentCalls(_ app: AppContainer, count: Int) async throws(CommandFailure) -> Int {
        do {
            return try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<count { group.addTask { _ = try await app.currentUser() } }
                var done = 0
                for try await _ in group { done += 1 }
                return done
            }
        } catch let error as AuthenticationError {
            throw .auth(error)
        } catch {
            throw .auth(.temporarilyUnavailable("unexpected failure"))
        }
    }

    private func auth<Value>(_ body: () async throws(AuthenticationError) -> Value) async throws(CommandFailure) -> Value {
        try await authStep(body)
    }

    private func expiry(_ token: AccessToken) -> String {
        guard let left = token.remainingLifetime(at: token.issuedAt) else { return ", expiry unknown" }
        return ", expires in \(Redaction.duration(left))"
    }

    private func status(_ app: AppContainer) async {
        detail("launch decision: \(Redaction.decision(await app.validateAuthentication()))")
    }
    private func step(_ number: Int, _ title: String) { say("\(number). \(title)") }
    private func detail(_ text: String) { say("   \(text)") }
    private func say(_ text: String) { Console.print(text) }
}
