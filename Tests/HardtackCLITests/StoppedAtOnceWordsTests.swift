import Testing

@testable import hardtack

/// What the gateway says when a second signal cuts its stop short: what it cut, and a possible lost refresh
/// only when a request was still being handled.
@Suite struct StoppedAtOnceWordsTests {
    @Test func nothingInFlight() {
        #expect(
            GatewayServeCommand.stoppedAtOnce(inFlight: 0, inHand: 0)
                == "stopped at once at a second signal; nothing was in flight")
    }

    @Test func answersCutButNothingBeingHandled() {
        let said = GatewayServeCommand.stoppedAtOnce(inFlight: 2, inHand: 0)
        #expect(said == "stopped at once at a second signal, with 2 requests in flight and 0 being handled (requests answered or "
                + "not, sweeps, revocations)")
    }

    @Test func aRequestStillBeingHandledMayHaveLostARefresh() {
        let said = GatewayServeCommand.stoppedAtOnce(inFlight: 1, inHand: 1)
        #expect(said.hasPrefix("stopped at once at a second signal, with 1 request in flight and 1 being handled"))
        #expect(said.contains("sign in again"))
    }
}
