import Data
import Testing

/// A storage failure said in one line: what happened, then what to do, each sentence ended once.
@Suite struct StorageFailureTests {
    @Test func aMessageThatEndsItsOwnSentenceGetsNoSecondStop() {
        let question = StorageFailure(
            backend: "PostgreSQL", kind: .unavailable,
            message: "cannot connect: Connection refused; Is the server running on that host?")
        #expect(question.description == question.message + " " + question.advice)
        #expect(!question.description.contains("?."))
        let plain = StorageFailure(backend: "PostgreSQL", kind: .unavailable, message: "the server is shutting down")
        #expect(plain.description == "the server is shutting down. " + plain.advice)
    }

    @Test func aRefusedLoginSaysWhatToCheckNotToTryAgain() {
        let refused = StorageFailure(backend: "PostgreSQL", kind: .notAuthenticated, message: "refused")
        #expect(refused.advice.hasPrefix("Check the user, password and database"))
        #expect(!refused.advice.contains("try again"))
    }
}
