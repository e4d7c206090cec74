import Data
import Foundation
import OpenSSLCrypto

/// The embedded server's ID token keys: the current one signs, every one made so far is published in
/// the JWKS (so tokens signed before a rotation still verify), each with its own `kid`.
struct IDTokenSigner: Sendable {
    private(set) var keys: [(id: String, key: OpenSSLSigningKey)] = []

    /// Makes a new current key for `algorithm`.
    mutating func rotate(to algorithm: JWSAlgorithm) throws {
        keys.append((id: "key-\(keys.count + 1)-\(algorithm.rawValue.lowercased())", key: try OpenSSLSigningKey(generating: algorithm)))
    }

    /// A compact JWS of `claims` signed with the current key.
    func sign(_ claims: [String: Any]) throws -> String {
        guard let current = keys.last else { throw LibCryptoError.invalidKey("no signing key") }
        let header: [String: Any] = ["alg": current.key.algorithm.rawValue, "kid": current.id, "typ": "JWT"]
        let input = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
            + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        return input + "." + Base64URL.encode(try current.key.sign(Data(input.utf8)))
    }

    /// The public keys as a JWKS object.
    var jwks: [String: Any] {
        ["keys": keys.map { entry -> [String: Any] in
            switch entry.key.publicKey {
            case .rsa(let n, let e):
                ["kty": "RSA", "use": "sig", "alg": "RS256", "kid": entry.id, "n": Base64URL.encode(n), "e": Base64URL.encode(e)]
            case .p256(let x, let y):
                ["kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": entry.id, "x": Base64URL.encode(x), "y": Base64URL.encode(y)]
            }
        }]
    }
}
