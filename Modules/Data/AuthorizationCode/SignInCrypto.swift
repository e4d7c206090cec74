public import Domain
public import Foundation

/// The port for the fresh values a sign-in makes (PKCE verifier, `state`, `nonce`) and the PKCE S256
/// hash. Adapter: OpenSSLCrypto's `OpenSSLSignInCrypto`.
public protocol SignInCrypto: Sendable {
    /// `count` bytes from a cryptographically secure generator.
    /// - Throws: ``AuthenticationError/unsupported(_:)`` when the generator fails.
    func randomBytes(count: Int) throws(AuthenticationError) -> [UInt8]
    /// SHA-256 of `data`.
    /// - Throws: ``AuthenticationError/unsupported(_:)`` when the library fails.
    func sha256(_ data: Data) throws(AuthenticationError) -> Data
}
