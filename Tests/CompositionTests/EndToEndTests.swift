import Composition
import DevelopmentComposition
import Data
import Domain
import Foundation
import Testing

/// The whole app through the composition root, against the embedded auth server over its HTTP
/// contract, with a real store file.
@Suite struct EndToEndTests {
    let alice = Credentials.password(username: "alice", password: SecretBytes(utf8: "wonderland"))

    @Test(arguments: [ServerContract.oauth, .header])
    func theWholeStory(_ contract: ServerContract) async throws {
        let world = try DemoEnvironment(storePath: nil, contract: contract)
        defer { world.removeTemporaryFiles() }
        var app = try await world.launch()
        #expect(await app.validateAuthentication() == .signedOut)

        let first = try await app.signIn(alice)
        app = try await world.launch()
        #expect(await app.validateAuthentication().showsMainFlow)
        #expect(try await app.currentUser().id == "alice")

        world.advanceClock(by: world.accessTokenLifetime + 60)
        if contract == .oauth {
            #expect(await app.validateAuthentication() == .signedInNeedsRefresh(user: User(id: "alice", name: "Alice Liddell")))
        }
        _ = try await app.currentUser()
        #expect(await world.serverCounters().refreshes == 1)
        // The header contract gives no lifetime: the expired token was sent, refused with 401, then refreshed.
        #expect(await world.serverCounters().unauthorized == (contract == .header ? 1 : 0))

        world.advanceClock(by: world.accessTokenLifetime + 60)
        let launched = app
        try await withThrowingTaskGroup(of: User.self) { group in
            for _ in 0..<30 { group.addTask { try await launched.currentUser() } }
            for try await user in group { #expect(user.id == "alice") }
        }
        #expect(await world.serverCounters().refreshes == 2)
        #expect(await app.refreshSession.refreshCount == 2)

        guard case .failure(.sessionExpired) = await world.replayStolenRefreshToken(of: first, through: app) else {
            Issue.record("a replayed refresh token must be refused")
            return
        }
        #expect(await world.serverCounters().reuseDetections == 1)
        await #expect(throws: AuthenticationError.sessionExpired) { try await app.currentUser() }
        #expect(await app.validateAuthentication() == .signedOut)
    }

    @Test func aServerFailureDuringRefreshKeepsTheSession() async throws {
        let world = try DemoEnvironment(storePath: nil)
        defer { world.removeTemporaryFiles() }
        let app = try await world.launch()
        _ = try await app.signIn(alice)
        world.advanceClock(by: world.accessTokenLifetime + 60)
        let expected: [(ServerFailure, String)] = [
            (.serverError, "the server answered HTTP 503"), (.garbage, "HTML"), (.down, "cannot reach the server"),
        ]
        for (failure, reason) in expected {
            // Past the pause a refresh the server did not answer puts before the session's next one.
            world.advanceClock(by: AuthenticationPolicy().unansweredRefreshPauseLimit)
            await world.simulateServerFailure(failure)
            await #expect {
                try await app.currentUser()
            } throws: { error in
                switch error as? AuthenticationError {
                case .temporarilyUnavailable(let message), .invalidResponse(let message): message.contains(reason)
                default: false
                }
            }
            #expect(try await app.repository.load() != nil)
            #expect(await app.validateAuthentication().showsMainFlow)
        }
        await world.simulateServerFailure(.none)
        world.advanceClock(by: AuthenticationPolicy().unansweredRefreshPauseLimit)
        #expect(try await app.currentUser().id == "alice")
        #expect(await world.serverCounters().reuseDetections == 0)
    }

    @Test func signOutDeletesLocallyWhenTheServerIsDown() async throws {
        let world = try DemoEnvironment(storePath: nil)
        defer { world.removeTemporaryFiles() }
        let app = try await world.launch()
        _ = try await app.signIn(alice)
        await world.simulateServerFailure(.down)
        let result = try await app.signOut()
        #expect(result.deletedLocalSession)
        guard case .failed = result.revocation else {
            Issue.record("revocation must be reported as failed")
            return
        }
        #expect(await app.validateAuthentication() == .signedOut)
    }

    @Test func refreshNowRotatesAndTheOldTokenIsNeverPresentedAgain() async throws {
        let world = try DemoEnvironment(storePath: nil)
        defer { world.removeTemporaryFiles() }
        let app = try await world.launch()
        _ = try await app.signIn(alice)
        for _ in 0..<3 { _ = try await app.refreshNow() }
        // A second launch (another process) refreshes from the stored, newest token.
        _ = try await world.launch().refreshNow()
        let counters = await world.serverCounters()
        #expect(counters.refreshes == 4)
        #expect(counters.reuseDetections == 0)
    }
}
