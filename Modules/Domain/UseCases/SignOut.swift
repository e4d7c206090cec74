/// Signs out: revokes the refresh token at the server (best effort), then deletes the local session,
/// which happens even when revocation fails.
public struct SignOut: Sendable {
    private let gateway: any AuthenticationGateway
    private let repository: any SessionRepository

    /// Creates the use case.
    public init(gateway: any AuthenticationGateway, repository: any SessionRepository) {
        self.gateway = gateway
        self.repository = repository
    }

    /// Signs out and says what happened on both sides.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot be read or written,
    ///   so nothing is known to be deleted.
    public func callAsFunction() async throws(AuthenticationError) -> SignOutResult {
        guard let session = try repository.load() else {
            return SignOutResult(revocation: .notSignedIn, deletedLocalSession: try repository.delete())
        }
        let revocation: SignOutResult.Revocation
        do {
            try await gateway.revoke(session.refreshToken)
            revocation = .revoked
        } catch {
            revocation = .failed(error.description)
        }
        return SignOutResult(revocation: revocation, deletedLocalSession: try repository.delete())
    }
}
