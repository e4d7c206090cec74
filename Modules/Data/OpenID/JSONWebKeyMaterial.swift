public import Foundation

/// The public part of a JSON Web Key (RFC 7517, RFC 7518 §6), its numbers as big-endian bytes.
public enum JSONWebKeyMaterial: Sendable, Equatable {
    /// An RSA public key: modulus `n` and exponent `e`.
    case rsa(modulus: Data, exponent: Data)
    /// A P-256 public key: the coordinates `x` and `y`, 32 bytes each.
    case p256(x: Data, y: Data)
}
