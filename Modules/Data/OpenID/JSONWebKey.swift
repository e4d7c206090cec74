/// One public key of an issuer's key set (JWKS), as ID token validation uses it.
public struct JSONWebKey: Sendable, Equatable {
    /// The key id (`kid`), which a token's header names.
    public let keyID: String?
    /// The algorithm the key is for (`alg`), when the set says.
    public let algorithm: String?
    /// The key's public numbers.
    public let material: JSONWebKeyMaterial

    /// Creates a key.
    public init(keyID: String?, algorithm: String?, material: JSONWebKeyMaterial) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.material = material
    }

    /// Whether the key can check a signature made with `jws`: the right key type, and the right
    /// algorithm when the key names one.
    public func fits(_ jws: JWSAlgorithm) -> Bool {
        if let algorithm, algorithm != jws.rawValue { return false }
        switch (material, jws) {
        case (.rsa, .rs256), (.p256, .es256): return true
        default: return false
        }
    }
}
