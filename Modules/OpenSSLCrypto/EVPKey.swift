import COpenSSL
import Foundation

/// An owned `EVP_PKEY` (public, or a key pair made by ``generate(rsaBits:)`` or ``generateP256()``),
/// freed on deinit. Not Sendable: one owner at a time.
final class EVPKey {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// The key's size in bits.
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// Whether the key is an RSA key (otherwise it is an EC key: the only other kind made here).
    var isRSA: Bool { EVP_PKEY_is_a(pointer, "RSA") == 1 }

    /// A new RSA key pair of `rsaBits` bits (2048 to 4096).
    static func generate(rsaBits: Int) throws(LibCryptoError) -> EVPKey {
        guard (2048...4096).contains(rsaBits) else { throw .invalidSize("an RSA key of \(rsaBits) bits") }
        return try generate(type: "RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(rsaBits)) == 1 }
    }

    /// A new P-256 key pair.
    static func generateP256() throws(LibCryptoError) -> EVPKey {
        try generate(type: "EC") { EVP_PKEY_CTX_set_group_name($0, ("prime256v1" as StaticString).cString) == 1 }
    }

    private static func generate(type: StaticString, _ configure: (OpaquePointer) -> Bool) throws(LibCryptoError) -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type.cString, nil) else {
            throw LibCrypto.failure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) else { throw LibCrypto.failure("EVP_PKEY_keygen_init") }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw LibCrypto.failure("EVP_PKEY_generate") }
        return EVPKey(key)
    }

    /// The named big-number parameter (`n`, `e`, `qx`, `qy`).
    func bigNumber(_ name: String) throws(LibCryptoError) -> BigNumber {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            throw LibCrypto.failure("EVP_PKEY_get_bn_param")
        }
        return BigNumber(owning: number)
    }

    /// Whether `signature` is a SHA-256 signature of `message`: PKCS #1 v1.5 for RSA (as many bytes as
    /// the modulus), ECDSA for P-256 (64 bytes `r ‖ s`, as JWS writes it).
    func verifySHA256(signature: Data, message: Data) throws(LibCryptoError) -> Bool {
        guard message.count <= LibCrypto.maximumMessageBytes else { throw .invalidSize("a message of \(message.count) bytes") }
        let encoded: Data
        if isRSA {
            guard signature.count == (bits + 7) / 8 else {
                throw .invalidSize("an RSA signature of \(signature.count) bytes for a \(bits)-bit key")
            }
            encoded = signature
        } else {
            guard signature.count == 2 * LibCrypto.p256CoordinateBytes else {
                throw .invalidSize("an ES256 signature of \(signature.count) bytes (64 expected)")
            }
            encoded = try ECDSASignature.der(fromRaw: signature)
        }
        guard let context = EVP_MD_CTX_new() else { throw LibCrypto.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw LibCrypto.failure("EVP_DigestVerifyInit")
        }
        let result = encoded.withUnsafeBytes { signatureBytes in
            message.withUnsafeBytes { messageBytes in
                EVP_DigestVerify(
                    context, signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count,
                    messageBytes.bindMemory(to: UInt8.self).baseAddress, messageBytes.count)
            }
        }
        // 1 is a match, 0 a mismatch; a negative value is a malformed signature, also not a match.
        ERR_clear_error()
        return result == 1
    }

    /// A SHA-256 signature of `message` with this key pair, in JWS form (see ``verifySHA256``).
    func signSHA256(_ message: Data) throws(LibCryptoError) -> Data {
        guard message.count <= LibCrypto.maximumMessageBytes else { throw .invalidSize("a message of \(message.count) bytes") }
        guard let context = EVP_MD_CTX_new() else { throw LibCrypto.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw LibCrypto.failure("EVP_DigestSignInit")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, nil, 0) == 1, (1...1024).contains(length) else {
            throw LibCrypto.failure("EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        let ok = message.withUnsafeBytes { bytes in
            EVP_DigestSign(context, &signature, &length, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
        }
        guard ok == 1, length <= signature.count else { throw LibCrypto.failure("EVP_DigestSign") }
        let produced = Data(signature.prefix(length))
        return isRSA ? produced : try ECDSASignature.raw(fromDER: produced)
    }
}
