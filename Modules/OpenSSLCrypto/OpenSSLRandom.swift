public import Foundation

/// Random bytes and SHA-256 from libcrypto, for the values a sign-in makes fresh (PKCE verifier,
/// `state`, `nonce`) and the PKCE S256 challenge.
public enum OpenSSLRandom {
    /// `count` (1 to 1024) bytes from OpenSSL's CSPRNG.
    /// - Throws: ``LibCryptoError`` on a bad count or a failing generator.
    public static func bytes(count: Int) throws(LibCryptoError) -> [UInt8] {
        try LibCrypto.randomBytes(count: count)
    }

    /// SHA-256 of `bytes`.
    /// - Throws: ``LibCryptoError`` when libcrypto fails.
    public static func sha256(_ bytes: Data) throws(LibCryptoError) -> Data {
        try LibCrypto.sha256(bytes)
    }
}
