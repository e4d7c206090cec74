public import Data
public import Foundation
import Synchronization

/// A JWS signing key pair made in memory (the embedded auth server signs its ID tokens with it): RS256
/// with a 2048-bit RSA key, or ES256 on P-256. The private half never leaves libcrypto.
public final class OpenSSLSigningKey: Sendable {
    /// The algorithm this key signs with.
    public let algorithm: JWSAlgorithm
    /// The public numbers, as a JWKS publishes them.
    public let publicKey: JSONWebKeyMaterial
    private let key: Mutex<EVPKey>

    /// Generates a new key pair for `algorithm`.
    /// - Throws: ``LibCryptoError`` when libcrypto fails.
    public init(generating algorithm: JWSAlgorithm) throws(LibCryptoError) {
        let pair: EVPKey
        switch algorithm {
        case .rs256:
            pair = try EVPKey.generate(rsaBits: 2048)
            publicKey = .rsa(
                modulus: try pair.bigNumber("n").minimalBytes(), exponent: try pair.bigNumber("e").minimalBytes())
        case .es256:
            pair = try EVPKey.generateP256()
            let width = LibCrypto.p256CoordinateBytes
            publicKey = .p256(x: try pair.bigNumber("qx").bytes(width: width), y: try pair.bigNumber("qy").bytes(width: width))
        }
        self.algorithm = algorithm
        key = Mutex(pair)
    }

    /// The JWS signature of `message` (RS256: as many bytes as the modulus; ES256: 64 bytes `r ‖ s`).
    /// - Throws: ``LibCryptoError`` when libcrypto fails or the message is over 1 MiB.
    public func sign(_ message: Data) throws(LibCryptoError) -> Data {
        try key.withLock { (pair: inout EVPKey) throws(LibCryptoError) -> Data in try pair.signSHA256(message) }
    }
}
