import Domain
import Testing

@testable import hardtack

/// The command line's words for a refresh whose new tokens the store could not keep in time: the session is
/// said to be probably lost (not kept, as for a store that was merely unreachable), with the store's reason and
/// what to run next; and the exit status that goes with it.
@Suite struct LostRotationAdviceTests {
    @Test func aLostRotationSaysTheSessionIsProbablyLostAndHowToSignInAgain() {
        let error = AuthenticationError.storageFailed(RefreshSession.rotationLost + "the database is restarting")
        let message = Advice.message(error)
        #expect(message.contains("(the database is restarting)"), "\(message)")
        #expect(message.contains("the session is probably lost"))
        #expect(message.contains("run `hardtack signin`"))
        #expect(!message.contains("not signed out"))
        #expect(ExitStatus(error) == .failure)
    }

    @Test func anotherStorageFailureKeepsItsOwnWords() {
        let error = AuthenticationError.storageFailed("the disk is full")
        #expect(Advice.message(error) == error.description)
        #expect(!Advice.message(error).contains("probably lost"))
    }
}
