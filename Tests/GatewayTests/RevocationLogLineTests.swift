import Domain
import Foundation
@testable import Gateway
import Testing

/// The JSON lines a revocation pass logs: valid JSON whatever its reason holds, saying what the pass followed.
@Suite struct RevocationLogLineTests {
    /// `line` parsed as a JSON object, or `nil`.
    private func parsed(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    @Test func aPassSaysWhatItFollowedAndItsCounts() throws {
        var outcome = RevokeEndedSessions.Outcome()
        outcome.revoked = 2
        outcome.deferred = 1
        outcome.lastFailure = #"the issuer said "no"\ and a line"# + "\nbreak"
        let line = Gateway.revocationLine(outcome, after: .backChannelLogout)
        let object = try #require(parsed(line), "\(line)")
        #expect(object["event"] as? String == "revocation")
        #expect(object["after"] as? String == "backchannel_logout")
        #expect(object["revoked"] as? Int == 2 && object["deferred"] as? Int == 1 && object["expired"] as? Int == 0)
        #expect(object["lastFailure"] as? String == outcome.lastFailure)
        #expect(!line.contains("\n"), "one line")
        let plain = try #require(parsed(Gateway.revocationLine(RevokeEndedSessions.Outcome(), after: .sweep)))
        #expect(plain["after"] as? String == "sweep" && plain["lastFailure"] == nil && plain["yielded"] == nil)
        outcome.yielded = true
        let yielded = try #require(parsed(Gateway.revocationLine(outcome, after: .sweep)))
        #expect(yielded["yielded"] as? Bool == true, "a pass that let a waiting one go first says so")
        outcome.stopped = true
        let stopping = try #require(parsed(Gateway.revocationLine(outcome, after: .sweep)))
        #expect(
            stopping["stopping"] as? Bool == true && stopping["yielded"] == nil,
            "a pass that stopped sending for the gateway's stop says that instead")
    }

    @Test func aSweepsPassYieldsToAWaitingPassAndABackChannelLogoutsNever() {
        #expect(Gateway.RevocationCause.sweep.yieldsToWaitingPasses)
        #expect(!Gateway.RevocationCause.backChannelLogout.yieldsToWaitingPasses)
    }

    @Test func aFailedPassSaysWhyAndThatTheNextSweepTriesAgain() throws {
        let line = Gateway.revocationFailureLine("the store \"x\" is unreachable\n", after: .sweep)
        let object = try #require(parsed(line), "\(line)")
        #expect(object["event"] as? String == "revocation" && object["after"] as? String == "sweep")
        #expect(object["error"] as? String == "the store \"x\" is unreachable\n")
        #expect(object["next"] as? String == "the next sweep tries again")
        #expect(!line.contains("\n"), "one line")
    }
}
