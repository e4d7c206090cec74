import COpenSSL
import Foundation

/// The one place that calls libcrypto (OpenSSL 3): SHA-256, random bytes, and public keys built from
/// JWK numbers. Sizes are checked before every C call; failures become ``LibCryptoError`` and clear
/// OpenSSL's per-thread error queue, so nothing leaks into a later call.
enum LibCrypto {
    /// RSA moduli accepted, in bytes: 2048 to 8192 bits (RFC 7518 §3.3 asks for at least 2048).
    static let rsaModulusBytes = 256...1024
    /// RSA public exponents accepted, in bytes.
    static let rsaExponentBytes = 1...8
    /// The size of a P-256 coordinate, of an `r` or `s`, and of a SHA-256 digest.
    static let p256CoordinateBytes = 32
    /// The largest message signed or checked (an ID token is far smaller).
    static let maximumMessageBytes = 1 << 20

    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: some ContiguousBytes) throws(LibCryptoError) -> Data {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        guard ok == 1, length == 32 else { throw failure("EVP_Digest") }
        return Data(digest.prefix(32))
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    static func randomBytes(count: Int) throws(LibCryptoError) -> [UInt8] {
        guard (1...1024).contains(count) else { throw .invalidSize("\(count) random bytes asked for") }
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw failure("RAND_bytes") }
        return bytes
    }

    /// The RSA public key with modulus `n` and exponent `e` (big-endian bytes).
    static func rsaPublicKey(modulus: Data, exponent: Data) throws(LibCryptoError) -> EVPKey {
        let modulus = modulus.drop { $0 == 0 }
        guard rsaModulusBytes.contains(modulus.count) else {
            throw .invalidSize("an RSA modulus of \(modulus.count * 8) bits (2048 to 8192 accepted)")
        }
        guard rsaExponentBytes.contains(exponent.count) else {
            throw .invalidSize("an RSA exponent of \(exponent.count) bytes")
        }
        let n = try BigNumber(modulus)
        let e = try BigNumber(exponent)
        return try fromParameters(type: "RSA") { builder in
            OSSL_PARAM_BLD_push_BN(builder, ("n" as StaticString).cString, n.pointer) == 1
                && OSSL_PARAM_BLD_push_BN(builder, ("e" as StaticString).cString, e.pointer) == 1
        }
    }

    /// The P-256 public key at (`x`, `y`); libcrypto refuses a point that is not on the curve.
    static func p256PublicKey(x: Data, y: Data) throws(LibCryptoError) -> EVPKey {
        guard x.count == p256CoordinateBytes, y.count == p256CoordinateBytes else {
            throw .invalidSize("P-256 coordinates of \(x.count) and \(y.count) bytes (32 each expected)")
        }
        // The builder keeps the value's pointer until `OSSL_PARAM_BLD_to_param`, so the point lives in a
        // buffer that outlasts the whole build.
        let point = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 + 2 * p256CoordinateBytes, alignment: 1)
        defer { point.deallocate() }
        point[0] = 4
        point.baseAddress!.advanced(by: 1).copyMemory(from: [UInt8](x), byteCount: p256CoordinateBytes)
        point.baseAddress!.advanced(by: 1 + p256CoordinateBytes).copyMemory(from: [UInt8](y), byteCount: p256CoordinateBytes)
        return try fromParameters(type: "EC") { builder in
            OSSL_PARAM_BLD_push_utf8_string(
                builder, ("group" as StaticString).cString,
                UnsafeMutablePointer(mutating: ("prime256v1" as StaticString).cString), 0) == 1
                && OSSL_PARAM_BLD_push_octet_string(builder, ("pub" as StaticString).cString, point.baseAddress, point.count)
                    == 1
        }
    }

    /// A public key of `type` from the parameters `push` adds.
    private static func fromParameters(
        type: StaticString, _ push: (OpaquePointer) -> Bool
    ) throws(LibCryptoError) -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw failure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder) else { throw failure("OSSL_PARAM_BLD_push") }
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else { throw failure("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type.cString, nil) else {
            throw failure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw failure("EVP_PKEY_fromdata_init") }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(context, &key, hardtack_evp_pkey_public_key_selection(), parameters) == 1,
            let key
        else {
            ERR_clear_error()
            throw .invalidKey("libcrypto refused the \(type) public key")
        }
        return EVPKey(key)
    }

    /// The error for a failed call, after clearing OpenSSL's error queue.
    static func failure(_ call: String) -> LibCryptoError {
        ERR_clear_error()
        return .callFailed(call)
    }
}

extension StaticString {
    /// The literal as a C string with static storage. libcrypto keeps some name and value pointers
    /// (`OSSL_PARAM_BLD_push_*`, `EVP_PKEY_CTX_new_from_name`) beyond the call, so Swift's temporary
    /// C strings would dangle there.
    var cString: UnsafePointer<CChar> {
        UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
