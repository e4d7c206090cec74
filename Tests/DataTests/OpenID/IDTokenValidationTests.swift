import Data
import Foundation
import OpenSSLCrypto
import Testing

/// Every rule of ID token validation, each with a token that breaks it.
@Suite struct IDTokenValidationTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let validator = IDTokenValidator(verifier: OpenSSLSignatureVerifier())
    let expected = IDTokenExpectations(issuer: "https://id.example.com", clientID: "app", nonce: "n1")

    func keys(_ issuer: TestIssuer) -> [JSONWebKey] {
        [JSONWebKey(keyID: issuer.keyID, algorithm: nil, material: issuer.key.publicKey)]
    }

    func refusal(_ issuer: TestIssuer, _ token: String, expecting: IDTokenExpectations? = nil) -> IDTokenError? {
        do {
            _ = try validator.validate(token, keys: keys(issuer), expecting: expecting ?? expected, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func aGoodTokenGivesItsClaims(_ algorithm: JWSAlgorithm) throws {
        let issuer = try TestIssuer(algorithm)
        let claims = try validator.validate(
            issuer.token(issuer.claims(now: now)), keys: keys(issuer), expecting: expected, now: now)
        #expect(claims.subject == "u1" && claims.name == "Alice")
        #expect(claims.expiresAt == now + 300 && claims.issuedAt == now)
    }

    /// The issuer's session id (`sid`) is kept when it is plain printable text, and left out otherwise
    /// (the token itself stays valid: `sid` is optional).
    @Test(arguments: [("s-123", "s-123"), ("", nil), ("a b", nil), (String(repeating: "x", count: 256), nil)])
    func theSessionIDIsKeptWhenPlain(_ sid: String, _ kept: String?) throws {
        let issuer = try TestIssuer()
        let claims = try validator.validate(
            issuer.token(issuer.claims(now: now) { $0["sid"] = sid }), keys: keys(issuer), expecting: expected, now: now)
        #expect(claims.sessionID == kept)
        let without = try validator.validate(issuer.token(issuer.claims(now: now)), keys: keys(issuer), expecting: expected, now: now)
        #expect(without.sessionID == nil)
    }

    @Test func aNumericSubIsAccepted() throws {
        let issuer = try TestIssuer()
        let claims = try validator.validate(
            issuer.token(issuer.claims(now: now) { $0["sub"] = 42 }), keys: keys(issuer), expecting: expected, now: now)
        #expect(claims.subject == "42")
    }

    @Test func noneAndHMACAreRefused() throws {
        let issuer = try TestIssuer()
        let good = try issuer.token(issuer.claims(now: now)).split(separator: ".")
        for alg in ["none", "HS256", "HS512", "RS512", "PS256"] {
            let header = TestIssuer.encode(Data(#"{"alg":"\#(alg)","kid":"k1"}"#.utf8))
            #expect(refusal(issuer, header + "." + good[1] + ".") == .algorithmNotAllowed(alg))
            #expect(refusal(issuer, header + "." + good[1] + "." + good[2]) == .algorithmNotAllowed(alg))
        }
    }

    @Test func aSignatureByAnotherKeyOrOverOtherClaimsIsRefused() throws {
        let issuer = try TestIssuer()
        let forger = try OpenSSLSigningKey(generating: .rs256)
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now), signer: forger)) == .badSignature)
        let parts = try issuer.token(issuer.claims(now: now)).split(separator: ".")
        let other = try issuer.token(issuer.claims(now: now) { $0["sub"] = "admin" }).split(separator: ".")
        #expect(refusal(issuer, [parts[0], other[1], parts[2]].joined(separator: ".")) == .badSignature)
    }

    @Test func aKeyOfAnotherAlgorithmOrIdIsNotUsed() throws {
        let issuer = try TestIssuer(.es256)
        let header: [String: Any] = ["alg": "RS256", "kid": "k1"]
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now), header: header, signer: try OpenSSLSigningKey(generating: .rs256))) == .unknownKey)
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now), header: ["alg": "ES256", "kid": "k2"])) == .unknownKey)
    }

    @Test(arguments: [
        ("iss", #""https://evil.example.com""#, "`iss`"),
        ("aud", #""other-app""#, "`aud`"),
        ("aud", #"["other-app", "third"]"#, "`aud`"),
        ("aud", #"["app", "third"]"#, "`azp`"),
        ("azp", #""third""#, "`azp`"),
        ("nonce", #""n2""#, "`nonce`"),
        ("sub", #""""#, "`sub`"),
    ])
    func aClaimThatBreaksARuleIsRefused(_ name: String, _ json: String, _ reason: String) throws {
        let issuer = try TestIssuer()
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        let error = refusal(issuer, try issuer.token(issuer.claims(now: now) { $0[name] = value }))
        guard case .claimRejected(let message) = error else {
            Issue.record("not refused for its claims: \(String(describing: error))")
            return
        }
        #expect(message.contains(reason))
    }

    @Test func severalAudiencesNeedAzpToBeThisClient() throws {
        let issuer = try TestIssuer()
        let token = try issuer.token(issuer.claims(now: now) { $0["aud"] = ["app", "third"]; $0["azp"] = "app" })
        #expect(refusal(issuer, token) == nil)
    }

    @Test func aMissingNonceIsRefusedWhenOneWasSentAndIgnoredOtherwise() throws {
        let issuer = try TestIssuer()
        let token = try issuer.token(issuer.claims(now: now) { $0["nonce"] = nil })
        #expect(refusal(issuer, token) == .claimRejected("`nonce` does not match the one sent"))
        let noNonce = IDTokenExpectations(issuer: expected.issuer, clientID: "app", nonce: nil)
        #expect(refusal(issuer, token, expecting: noNonce) == nil)
    }

    @Test func expiryAndIssueTimeFollowTheClockSkewRule() throws {
        let issuer = try TestIssuer()
        let t = now.timeIntervalSince1970
        // Issued 10 min ago for 5 min: 5 min past expiry, far beyond the 30 s allowance.
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now) { $0["iat"] = t - 600; $0["exp"] = t - 300 }))
            == .claimRejected("it has expired (`exp`)"))
        // 20 s past expiry of a 10-minute token: within the 30 s allowance.
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now) { $0["iat"] = t - 620; $0["exp"] = t - 20 })) == nil)
        // A 10 s token 6 s past its expiry: the allowance is capped at half its lifetime (5 s).
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now) { $0["iat"] = t - 16; $0["exp"] = t - 6 }))
            == .claimRejected("it has expired (`exp`)"))
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now) { $0["iat"] = t + 120; $0["exp"] = t + 600 }))
            == .claimRejected("it was issued in the future (`iat`)"))
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now) { $0["iat"] = t + 10; $0["exp"] = t + 600 })) == nil)
        #expect(refusal(issuer, try issuer.token(issuer.claims(now: now) { $0["iat"] = t; $0["exp"] = t }))
            == .claimRejected("`exp` is not after `iat`"))
    }

    @Test(arguments: ["", "a.b", "a.b.c.d.e", "!!.e30.AA", "e30.e30.AA"])
    func malformedTokensAreRefused(_ token: String) throws {
        let issuer = try TestIssuer()
        guard case .malformed = refusal(issuer, token) else {
            Issue.record("not refused as malformed")
            return
        }
    }

    @Test func criticalHeaderExtensionsAreRefused() throws {
        let issuer = try TestIssuer()
        let token = try issuer.token(issuer.claims(now: now), header: ["alg": "RS256", "kid": "k1", "crit": ["exp"]])
        #expect(refusal(issuer, token) == .malformed("the header has critical extensions (`crit`)"))
    }

    @Test func errorsNeverShowTheTokenOrItsClaims() throws {
        let issuer = try TestIssuer()
        let token = try issuer.token(issuer.claims(now: now) { $0["nonce"] = "secret-nonce-value" })
        let error = try #require(refusal(issuer, token))
        #expect(!error.description.contains("secret-nonce-value") && !error.description.contains(token.prefix(20)))
        #expect(!error.description.contains("n1"))
    }
}
