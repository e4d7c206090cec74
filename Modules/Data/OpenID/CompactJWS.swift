import Foundation

/// A compact JWS (RFC 7515 §7.1) taken apart: the header checked against the allow-list, the payload
/// and signature decoded. Says nothing about whether the signature verifies.
struct CompactJWS {
    let algorithm: JWSAlgorithm
    let keyID: String?
    let signingInput: Data
    let payload: Data
    let signature: Data

    init(_ token: String) throws(IDTokenError) {
        guard token.utf8.count <= IDTokenValidator.maximumBytes else {
            throw .malformed("over \(IDTokenValidator.maximumBytes / 1024) KiB")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("not three dot-separated parts (an encrypted token is not supported)") }
        guard let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw .malformed("a part is not base64url") }
        let header: JOSEHeaderDTO
        do {
            header = try JSONDecoder().decode(JOSEHeaderDTO.self, from: headerBytes)
        } catch {
            throw .malformed("the header is not the expected JSON")
        }
        guard let algorithm = JWSAlgorithm(rawValue: header.alg) else {
            // The name is a short server-chosen word; bounded and printable before it is shown.
            throw .algorithmNotAllowed(String(header.alg.unicodeScalars.filter { $0.isASCII && $0.value > 0x20 }.prefix(16)))
        }
        guard header.crit == nil else { throw .malformed("the header has critical extensions (`crit`)") }
        guard !signature.isEmpty else { throw .badSignature }
        self.algorithm = algorithm
        keyID = header.kid
        signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        self.payload = payload
        self.signature = signature
    }

    /// The keys of `keys` that may have made this signature: the right type and algorithm and, when the
    /// header names a key id, that id.
    func candidates(in keys: [JSONWebKey]) -> [JSONWebKey] {
        keys.filter { key in
            key.fits(algorithm) && (keyID == nil || key.keyID == keyID)
        }
    }
}
