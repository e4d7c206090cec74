import Data
import Domain
import Foundation
import Testing

@Suite struct LegacyPreferencesTests {
    @Test func readsTheSeedsKeys() throws {
        let parsed = try LegacyPreferences.parse(Data(#"{"Authorization":"Bearer at","refresh":"rt","theme":1}"#.utf8))
        guard case .tokens(let access, let refresh) = parsed else {
            Issue.record("expected tokens")
            return
        }
        #expect(access.revealedString() == "at")
        #expect(refresh.revealedString() == "rt")
    }

    @Test func zerosMeanAnEarlierRunWipedIt() throws {
        guard case .wiped = try LegacyPreferences.parse(Data(count: 64)) else {
            Issue.record("expected wiped")
            return
        }
    }

    @Test(arguments: ["not json", #"{"Authorization":"at"}"#, #"{"refresh":"rt"}"#, "[]"])
    func unusableFilesAreErrorsThatNeverQuoteTheFile(_ text: String) {
        #expect {
            try LegacyPreferences.parse(Data(text.utf8))
        } throws: { error in
            guard case .invalidLegacyFile(let message) = error as? AuthenticationError else { return false }
            return !message.contains("at\"") && !message.contains("rt\"")
        }
    }
}
