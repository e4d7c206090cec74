public import Data
public import Domain
public import Foundation

/// The ``SignInCrypto`` port over libcrypto: OpenSSL's CSPRNG and SHA-256.
public struct OpenSSLSignInCrypto: SignInCrypto {
    /// Creates the adapter; it holds no state.
    public init() {}

    /// `count` random bytes.
    /// - Throws: ``AuthenticationError/unsupported(_:)`` when the generator fails.
    public func randomBytes(count: Int) throws(AuthenticationError) -> [UInt8] {
        do {
            return try LibCrypto.randomBytes(count: count)
        } catch {
            throw .unsupported("no random bytes: \(error.description)")
        }
    }

    /// SHA-256 of `data`.
    /// - Throws: ``AuthenticationError/unsupported(_:)`` when libcrypto fails.
    public func sha256(_ data: Data) throws(AuthenticationError) -> Data {
        do {
            return try LibCrypto.sha256(data)
        } catch {
            throw .unsupported("SHA-256 failed: \(error.description)")
        }
    }
}
