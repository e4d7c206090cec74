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

    /// Signs out and says what happened on both sides. A session that cannot be read (a record from
    /// a newer version, say) is still deleted; it just cannot be revoked.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot be written either
    ///   (it is locked), so nothing was deleted.
    public func callAsFunction() async throws(AuthenticationError) -> SignOutResult {
        let stored: Session?
        do {
            stored = try await repository.load()
        } catch .storeUnavailable(let reason), .storeDamaged(let reason) {
            return SignOutResult(
                revocation: .failed("the stored session could not be read (\(reason)), so it was not revoked"),
                deletedLocalSession: try await repository.delete())
        }
        guard let session = stored else {
            return SignOutResult(revocation: .notSignedIn, deletedLocalSession: try await repository.delete())
        }
        let revocation: SignOutResult.Revocation
        do {
            try await gateway.revoke(session.refreshToken)
            revocation = .revoked
        } catch .temporarilyUnavailable(let reason) {
            // Not the error's own text: it promises that the session is kept, and here it is not.
            revocation = .failed("the server could not be reached: \(reason)")
        } catch {
            revocation = .failed(error.description)
        }
        return SignOutResult(revocation: revocation, deletedLocalSession: try await repository.delete())
    }
}
