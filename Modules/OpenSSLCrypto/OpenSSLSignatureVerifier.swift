public import Data
public import Foundation

/// The ``JWSSignatureVerifier`` port over OpenSSL's libcrypto: RS256 and ES256.
public struct OpenSSLSignatureVerifier: JWSSignatureVerifier {
    /// Creates the verifier; it holds no state.
    public init() {}

    /// Whether `signature` is a valid `algorithm` signature of `message` under `key`.
    /// - Throws: ``JWSVerificationError`` for a key or signature that cannot be used at all.
    public func verify(signature: Data, of message: Data, algorithm: JWSAlgorithm, key: JSONWebKeyMaterial)
        throws(JWSVerificationError) -> Bool
    {
        do {
            let publicKey: EVPKey
            switch (algorithm, key) {
            case (.rs256, .rsa(let modulus, let exponent)):
                publicKey = try LibCrypto.rsaPublicKey(modulus: modulus, exponent: exponent)
            case (.es256, .p256(let x, let y)):
                publicKey = try LibCrypto.p256PublicKey(x: x, y: y)
            default:
                throw JWSVerificationError.unusableKey("the key's type does not fit \(algorithm.rawValue)")
            }
            return try publicKey.verifySHA256(signature: signature, message: message)
        } catch let error as JWSVerificationError {
            throw error
        } catch let error as LibCryptoError {
            throw Self.translate(error)
        } catch {
            throw .libraryFailure("unexpected error")
        }
    }

    private static func translate(_ error: LibCryptoError) -> JWSVerificationError {
        switch error {
        case .invalidSize(let what) where what.contains("signature"): .malformedSignature(what)
        case .invalidSize(let what), .invalidKey(let what): .unusableKey(what)
        case .callFailed: .libraryFailure(error.description)
        }
    }
}
