import Data
import Foundation
import OpenSSLCrypto
import Testing

/// Known answers from RFC 7515 Appendices A.2 (RS256) and A.3 (ES256), tampering, and sizes refused
/// before libcrypto is called.
@Suite struct SignatureVerifierTests {
    let verifier = OpenSSLSignatureVerifier()
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static var rsaKey: JSONWebKeyMaterial { JSONWebKeyMaterial.rsa(
        modulus: bytes(
            "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
        ),
        exponent: bytes("AQAB")) }
    static var rsaMessage: Data { Data(("eyJhbGciOiJSUzI1NiJ9." + payload).utf8) }
    static var rsaSignature: Data { bytes(
        "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    ) }
    static var ecKey: JSONWebKeyMaterial { JSONWebKeyMaterial.p256(
        x: bytes("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"),
        y: bytes("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")) }
    static var ecMessage: Data { Data(("eyJhbGciOiJFUzI1NiJ9." + payload).utf8) }
    static var ecSignature: Data { bytes(
        "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q") }

    /// The bytes of a base64url test vector as the RFCs print them, decoded by Data's own decoder (empty
    /// when it does not decode, so the verification it feeds fails).
    static func bytes(_ text: String) -> Data { Base64URL.decode(text) ?? Data() }

    @Test func theRFC7515VectorsVerify() throws {
        #expect(try verifier.verify(signature: Self.rsaSignature, of: Self.rsaMessage, algorithm: .rs256, key: Self.rsaKey))
        #expect(try verifier.verify(signature: Self.ecSignature, of: Self.ecMessage, algorithm: .es256, key: Self.ecKey))
    }

    @Test func aChangedMessageOrSignatureDoesNotVerify() throws {
        var message = Self.rsaMessage
        message[message.count - 1] ^= 1
        #expect(try !verifier.verify(signature: Self.rsaSignature, of: message, algorithm: .rs256, key: Self.rsaKey))
        var signature = Self.rsaSignature
        signature[10] ^= 0x80
        #expect(try !verifier.verify(signature: signature, of: Self.rsaMessage, algorithm: .rs256, key: Self.rsaKey))
        var ecSignature = Self.ecSignature
        ecSignature[40] ^= 1
        #expect(try !verifier.verify(signature: ecSignature, of: Self.ecMessage, algorithm: .es256, key: Self.ecKey))
        #expect(try !verifier.verify(signature: Self.ecSignature, of: Self.rsaMessage, algorithm: .es256, key: Self.ecKey))
    }

    @Test func aKeyOfTheWrongTypeIsUnusable() {
        #expect(throws: JWSVerificationError.self) {
            try verifier.verify(signature: Self.ecSignature, of: Self.ecMessage, algorithm: .es256, key: Self.rsaKey)
        }
        #expect(throws: JWSVerificationError.self) {
            try verifier.verify(signature: Self.rsaSignature, of: Self.rsaMessage, algorithm: .rs256, key: Self.ecKey)
        }
    }

    @Test func sizesAreCheckedBeforeLibcrypto() {
        #expect(throws: JWSVerificationError.malformedSignature("an ES256 signature of 63 bytes (64 expected)")) {
            try verifier.verify(
                signature: Self.ecSignature.prefix(63), of: Self.ecMessage, algorithm: .es256, key: Self.ecKey)
        }
        #expect(throws: JWSVerificationError.malformedSignature("an RSA signature of 255 bytes for a 2048-bit key")) {
            try verifier.verify(
                signature: Self.rsaSignature.dropLast(), of: Self.rsaMessage, algorithm: .rs256, key: Self.rsaKey)
        }
        let shortModulus = JSONWebKeyMaterial.rsa(modulus: Data(repeating: 0xC5, count: 128), exponent: Data([1, 0, 1]))
        #expect(throws: JWSVerificationError.unusableKey("an RSA modulus of 1024 bits (2048 to 8192 accepted)")) {
            try verifier.verify(signature: Data(count: 128), of: Self.rsaMessage, algorithm: .rs256, key: shortModulus)
        }
        let shortX = JSONWebKeyMaterial.p256(x: Data(count: 31), y: Data(count: 32))
        #expect(throws: JWSVerificationError.self) {
            try verifier.verify(signature: Self.ecSignature, of: Self.ecMessage, algorithm: .es256, key: shortX)
        }
    }

    @Test func aPointOffTheCurveIsRefused() {
        guard case .p256(let x, var y) = Self.ecKey else { return }
        y[31] ^= 1
        #expect(throws: JWSVerificationError.self) {
            try verifier.verify(signature: Self.ecSignature, of: Self.ecMessage, algorithm: .es256, key: .p256(x: x, y: y))
        }
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func aGeneratedKeySignsWhatItsPublicHalfVerifies(_ algorithm: JWSAlgorithm) throws {
        let key = try OpenSSLSigningKey(generating: algorithm)
        let message = Data("header.payload".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == (algorithm == .rs256 ? 256 : 64))
        #expect(try verifier.verify(signature: signature, of: message, algorithm: algorithm, key: key.publicKey))
        #expect(try !verifier.verify(signature: signature, of: Data("header.payload2".utf8), algorithm: algorithm, key: key.publicKey))
        let other = try OpenSSLSigningKey(generating: algorithm)
        #expect(try !verifier.verify(signature: signature, of: message, algorithm: algorithm, key: other.publicKey))
    }

    @Test func randomBytesAndSHA256() throws {
        let a = try OpenSSLRandom.bytes(count: 32)
        let b = try OpenSSLRandom.bytes(count: 32)
        #expect(a.count == 32 && a != b)
        #expect(throws: LibCryptoError.self) { try OpenSSLRandom.bytes(count: 0) }
        // FIPS 180-2 test vector: SHA-256("abc").
        let digest = try OpenSSLRandom.sha256(Data("abc".utf8))
        #expect(digest.map { String(format: "%02x", $0) }.joined()
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
