import Domain
import Foundation
import Testing

@Suite struct AccessTokenTests {
    let birth = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aThreeSecondTokenIsUsableAtBirthDespiteALargeSkew() throws {
        let token = try AccessToken(value: SecretBytes(utf8: "abc"), issuedAt: birth, expiresAt: birth + 3)
        #expect(token.isUsable(at: birth, skew: 30))
        #expect(token.isUsable(at: birth + 2.6, skew: 30))
        #expect(!token.isUsable(at: birth + 2.75, skew: 30))
    }

    /// A minute's token serves 54 s, not 30: the margin is a tenth of a short lifetime, not half.
    @Test func aMinutesTokenIsRefreshedOnlyInItsLastTenth() throws {
        let token = try AccessToken(value: SecretBytes(utf8: "abc"), issuedAt: birth, expiresAt: birth + 60)
        #expect(token.isUsable(at: birth + 53.5, skew: 30))
        #expect(!token.isUsable(at: birth + 54.5, skew: 30))
    }

    @Test func aLongTokenKeepsTheFullSkewInHand() throws {
        let token = try AccessToken(value: SecretBytes(utf8: "abc"), issuedAt: birth, expiresAt: birth + 3600)
        #expect(token.isUsable(at: birth + 3569, skew: 30))
        #expect(!token.isUsable(at: birth + 3571, skew: 30))
        #expect(token.remainingLifetime(at: birth + 600) == 3000)
    }

    @Test func anUnknownExpiryIsUsableUntilA401() throws {
        let token = try AccessToken(value: SecretBytes(utf8: "abc"), issuedAt: birth, expiresAt: nil)
        #expect(token.isUsable(at: birth + 1_000_000, skew: 30))
        #expect(token.remainingLifetime(at: birth) == nil)
    }

    @Test(arguments: ["", " ", "abc def", "abc\r\nX-Evil: 1", "Optional(\"abc\")", "=abc", "ab=c"])
    func malformedTokensAreRefused(_ value: String) {
        #expect(throws: AuthenticationError.self) {
            try AccessToken(value: SecretBytes(utf8: value), issuedAt: birth, expiresAt: nil)
        }
        #expect(throws: AuthenticationError.self) { try RefreshToken(value: SecretBytes(utf8: value)) }
    }

    @Test func wellFormedBearerTokensAreAccepted() throws {
        for value in ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "a-b_c~d+e/f==", "x"] {
            _ = try AccessToken(value: SecretBytes(utf8: value), issuedAt: birth, expiresAt: nil)
        }
    }

    @Test func descriptionsNeverShowTheToken() throws {
        let access = try AccessToken(value: SecretBytes(utf8: "topsecretvalue"), issuedAt: birth, expiresAt: nil)
        let refresh = try RefreshToken(value: SecretBytes(utf8: "topsecretvalue"))
        for text in ["\(access)", "\(refresh)", String(reflecting: access), String(reflecting: refresh)] {
            #expect(!text.contains("topsecretvalue"))
        }
    }
}
