import Data
import Domain
import Foundation
import Testing
@testable import DevelopmentServers

@Suite struct JSONWebTokenTests {
    let key = SecretBytes(Array(repeating: 7, count: 32))
    let claims = AccessTokenClaims(sub: "alice", name: "Alice Liddell", iat: 1_000, exp: 1_300, jti: "j1", fam: "f1")

    /// Flips one bit of the decoded bytes of part `index` and re-encodes it canonically, so the change
    /// is a real change of bytes and not a spelling of the same bytes.
    static func tamper(_ token: String, part index: Int) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var bytes = Base64URL.decode(Substring(parts[index]))!
        bytes[bytes.count / 2] ^= 0x01
        parts[index] = Base64URL.encode(bytes)
        return parts.joined(separator: ".")
    }

    @Test func signedTokenVerifiesToTheSameClaims() {
        let token = JSONWebToken.sign(claims, key: key)
        #expect(token.split(separator: ".").count == 3)
        #expect(JSONWebToken.verify(token, key: key) == .success(claims))
    }

    @Test func anotherKeyDoesNotVerify() {
        let token = JSONWebToken.sign(claims, key: key)
        let other = SecretBytes(Array(repeating: 8, count: 32))
        #expect(JSONWebToken.verify(token, key: other) == .failure(.badSignature))
    }

    @Test func flippedPayloadOrSignatureByteFails() {
        let token = JSONWebToken.sign(claims, key: key)
        #expect(JSONWebToken.verify(Self.tamper(token, part: 1), key: key) == .failure(.badSignature))
        #expect(JSONWebToken.verify(Self.tamper(token, part: 2), key: key) == .failure(.badSignature))
    }

    @Test func algorithmsOtherThanHS256AreRefusedEvenWithAValidMAC() {
        // These tokens carry a correct HMAC under the server key, so only the alg check can refuse them.
        for header in [
            #"{"alg":"none","typ":"JWT"}"#, #"{"alg":"HS512","typ":"JWT"}"#, #"{"alg":"hs256"}"#, #"{"typ":"JWT"}"#,
        ] {
            let token = JSONWebToken.sign(claims, key: key, header: header)
            #expect(JSONWebToken.verify(token, key: key) == .failure(.unsupportedAlgorithm), "\(header)")
        }
        let critical = JSONWebToken.sign(claims, key: key, header: #"{"alg":"HS256","crit":["exp"]}"#)
        #expect(JSONWebToken.verify(critical, key: key) == .failure(.unsupportedAlgorithm))
    }

    @Test func unsignedNoneTokenIsRefused() {
        let parts = JSONWebToken.sign(claims, key: key).split(separator: ".")
        let unsigned = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + "."
        #expect(JSONWebToken.verify(unsigned, key: key) == .failure(.unsupportedAlgorithm))
    }

    @Test func malformedTokensAreRefused() {
        let token = JSONWebToken.sign(claims, key: key)
        #expect(JSONWebToken.verify("", key: key) == .failure(.malformed))
        #expect(JSONWebToken.verify("a.b", key: key) == .failure(.malformed))
        #expect(JSONWebToken.verify(token + ".x", key: key) == .failure(.malformed))
        #expect(JSONWebToken.verify(token + "=", key: key) == .failure(.malformed))
        #expect(JSONWebToken.verify("!!!." + token, key: key) == .failure(.malformed))
    }

    @Test func base64URLRefusesNonCanonicalSpellings() {
        #expect(Base64URL.decode("AQ") == Data([1]))
        #expect(Base64URL.decode("AR") == nil)  // the same byte with a stray low bit set
        #expect(Base64URL.decode("AQ==") == nil)
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    /// The table-driven codec against Foundation's base64 with the alphabet swapped and the padding
    /// dropped: every length from 0 to 66 bytes, random contents, round trips (a length of 4n + 1 never
    /// decodes), and every last character
    /// of a 1- and 2-byte remainder, of which only the canonical ones decode.
    @Test func base64URLAgreesWithFoundationAndDecodesOnlyItsOwnSpelling() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...66 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected, "\(count) bytes")
            #expect(Base64URL.decode(expected) == Data(bytes), "\(count) bytes")
            #expect(Base64URL.decode(Substring(expected + "A")) == nil || count % 3 != 0, "\(count) bytes and a stray A")
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for (index, last) in alphabet.enumerated() {
            #expect((Base64URL.decode("AA\(last)") != nil) == (index % 4 == 0), "AA\(last)")
            #expect((Base64URL.decode("A\(last)") != nil) == (index % 16 == 0), "A\(last)")
        }
        for refused in ["A+", "A/", "AA=", " AA", "AA\n", "é", "AAAA AAAA"] {
            #expect(Base64URL.decode(refused) == nil, "\(refused)")
        }
    }
}
