import COpenSSL
import Foundation

/// Conversions between JWS's fixed-size ECDSA signatures (`r ‖ s`, 32 bytes each for P-256) and the
/// DER `ECDSA-Sig-Value` libcrypto reads and writes.
enum ECDSASignature {
    /// The DER form of a 64-byte `r ‖ s`.
    static func der(fromRaw raw: Data) throws(LibCryptoError) -> Data {
        let width = LibCrypto.p256CoordinateBytes
        guard raw.count == 2 * width else { throw .invalidSize("an ES256 signature of \(raw.count) bytes") }
        let bytes = [UInt8](raw)
        guard let signature = ECDSA_SIG_new() else { throw LibCrypto.failure("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(bytes, Int32(width), nil) else { throw LibCrypto.failure("BN_bin2bn") }
        guard let s = BN_bin2bn(Array(bytes[width...]), Int32(width), nil) else {
            BN_free(r)
            throw LibCrypto.failure("BN_bin2bn")
        }
        // ECDSA_SIG_set0 takes ownership of r and s on success only.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw LibCrypto.failure("ECDSA_SIG_set0")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard (8...80).contains(length) else { throw LibCrypto.failure("i2d_ECDSA_SIG") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw LibCrypto.failure("i2d_ECDSA_SIG") }
        return Data(der)
    }

    /// The 64-byte `r ‖ s` of a DER signature.
    static func raw(fromDER der: Data) throws(LibCryptoError) -> Data {
        guard (8...80).contains(der.count) else { throw .invalidSize("a DER ECDSA signature of \(der.count) bytes") }
        let bytes = [UInt8](der)
        let parsed = bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw LibCrypto.failure("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(parsed) }
        guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed) else {
            throw LibCrypto.failure("ECDSA_SIG_get0")
        }
        let width = LibCrypto.p256CoordinateBytes
        var out = [UInt8](repeating: 0, count: 2 * width)
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(width)) == Int32(width)
                && BN_bn2binpad(s, buffer.baseAddress! + width, Int32(width)) == Int32(width)
        }
        guard ok else { throw LibCrypto.failure("BN_bn2binpad") }
        return Data(out)
    }
}
