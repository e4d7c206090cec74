public import Foundation

/// The port through which JWS signatures are checked (libsodium has neither RSA nor P-256). Adapter:
/// OpenSSLCrypto's `OpenSSLSignatureVerifier`.
public protocol JWSSignatureVerifier: Sendable {
    /// Whether `signature` is a valid `algorithm` signature of `message` under `key`.
    /// - Throws: ``JWSVerificationError`` when the key or the signature cannot be used at all (a wrong
    ///   size or type), never for a well-formed signature that does not match: that returns `false`.
    func verify(signature: Data, of message: Data, algorithm: JWSAlgorithm, key: JSONWebKeyMaterial)
        throws(JWSVerificationError) -> Bool
}
