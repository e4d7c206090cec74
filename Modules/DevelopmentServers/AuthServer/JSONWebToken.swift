import Data
import Domain
import Foundation

/// HS256 JSON Web Tokens (RFC 7519) signed and verified with libsodium's HMAC-SHA-256.
///
/// Verification checks the header's `alg` before anything else and accepts only `HS256`, so a token
/// claiming `none` or another algorithm is refused whatever its signature. Expiry is not checked here:
/// that needs the server's clock.
enum JSONWebToken {
    /// The compact serialization of `claims`, signed with `key`.
    static func sign(_ claims: AccessTokenClaims, key: SecretBytes) -> String {
        sign(claims, key: key, header: #"{"alg":"HS256","typ":"JWT"}"#)
    }

    /// Signs `claims` under an arbitrary `header`, for tests that forge headers.
    static func sign(_ claims: AccessTokenClaims, key: SecretBytes, header: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings and integers cannot fail.
        let payload = (try? encoder.encode(claims)) ?? Data()
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(AuthCrypto.mac(Array(signingInput.utf8), key: key))
    }

    /// The claims of `token` when its header says HS256 and its signature verifies under `key`.
    static func verify(_ token: String, key: SecretBytes) -> Result<AccessTokenClaims, JWTRejection> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]) else { return .failure(.malformed) }
        guard let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any] else {
            return .failure(.malformed)
        }
        guard header["alg"] as? String == "HS256", header["crit"] == nil else {
            return .failure(.unsupportedAlgorithm)
        }
        guard let signature = Base64URL.decode(parts[2]).map(Array.init) else { return .failure(.malformed) }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard AuthCrypto.verifyMAC(signature, message: signingInput, key: key) else {
            return .failure(.badSignature)
        }
        guard let payload = Base64URL.decode(parts[1]),
            let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: Data(payload))
        else { return .failure(.malformed) }
        return .success(claims)
    }
}
