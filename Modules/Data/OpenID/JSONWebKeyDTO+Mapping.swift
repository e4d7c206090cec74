extension JSONWebKeyDTO {
    /// The key, or `nil` when this client cannot use it to check signatures: another key type or
    /// curve, a key for encryption (`use` other than `sig`), or numbers that are not base64url. Such
    /// keys are skipped, not fatal: a set may hold keys for other purposes.
    var key: JSONWebKey? {
        if let use, use != "sig" { return nil }
        switch (kty, crv) {
        case ("RSA", _):
            guard let n, let e, let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else { return nil }
            return JSONWebKey(keyID: kid, algorithm: alg, material: .rsa(modulus: modulus, exponent: exponent))
        case ("EC", "P-256"?):
            guard let x, let y, let xBytes = Base64URL.decode(x), let yBytes = Base64URL.decode(y) else { return nil }
            return JSONWebKey(keyID: kid, algorithm: alg, material: .p256(x: xBytes, y: yBytes))
        default:
            return nil
        }
    }
}
