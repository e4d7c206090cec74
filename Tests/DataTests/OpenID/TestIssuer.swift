import Data
import Foundation
import OpenSSLCrypto

/// An issuer for tests: a signing key, ID tokens made to order (any header, any claims, even unsigned),
/// and the JWKS that publishes the key.
struct TestIssuer {
    let issuer = "https://id.example.com"
    let key: OpenSSLSigningKey
    let keyID: String

    init(_ algorithm: JWSAlgorithm = .rs256, keyID: String = "k1") throws {
        key = try OpenSSLSigningKey(generating: algorithm)
        self.keyID = keyID
    }

    /// Claims valid at `now` for client `app` with nonce `n1`, changed by `edit`.
    func claims(now: Date, _ edit: (inout [String: Any]) -> Void = { _ in }) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": issuer, "sub": "u1", "aud": "app", "exp": now.timeIntervalSince1970 + 300,
            "iat": now.timeIntervalSince1970, "nonce": "n1", "name": "Alice",
        ]
        edit(&claims)
        return claims
    }

    /// A compact JWS of `claims` with `header` (default: this key's algorithm and id), signed by
    /// `signer` (default: this key).
    func token(_ claims: [String: Any], header: [String: Any]? = nil, signer: OpenSSLSigningKey? = nil) throws -> String {
        let header = header ?? ["alg": key.algorithm.rawValue, "kid": keyID, "typ": "JWT"]
        let input = try Self.encode(JSONSerialization.data(withJSONObject: header)) + "."
            + Self.encode(JSONSerialization.data(withJSONObject: claims))
        return input + "." + Self.encode(try (signer ?? key).sign(Data(input.utf8)))
    }

    /// The JWKS publishing `keys` (id and key pairs).
    static func jwks(_ keys: [(String, OpenSSLSigningKey)]) -> String {
        let entries = keys.map { kid, key -> String in
            switch key.publicKey {
            case .rsa(let n, let e):
                #"{"kty":"RSA","kid":"\#(kid)","use":"sig","alg":"RS256","n":"\#(encode(n))","e":"\#(encode(e))"}"#
            case .p256(let x, let y):
                #"{"kty":"EC","crv":"P-256","kid":"\#(kid)","x":"\#(encode(x))","y":"\#(encode(y))"}"#
            }
        }
        return #"{"keys":["# + entries.joined(separator: ",") + "]}"
    }

    var jwks: String { Self.jwks([(keyID, key)]) }

    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
