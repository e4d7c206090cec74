import Data
import Domain
import Foundation
import Infrastructure

/// Where a browser or device flow's session goes once the server has issued it: only then is the store
/// opened (or created), the session replaces the account's, and the session it replaced has its refresh
/// token revoked where that token came from (its issuer's endpoint, or the server it was signed in at),
/// best effort, so that signing in again leaves no live token behind. A flow cancelled before this
/// point stores nothing.
struct SignedInSessionSaver {
    /// The store the session goes into.
    var store: StoreConfiguration
    /// Whose session it is.
    var account: AccountName
    /// The clock a replaced session's issuer route checks against.
    var now: @Sendable () -> Date

    /// Stores `session` under the account, revokes the replaced one, and returns the open store.
    /// - Throws: ``SignInFailure/cancelled`` when the flow was cancelled before anything was stored, and
    ///   the store's and repository's failures.
    func save(_ signedIn: Session) async throws(SignInFailure) -> KeychainHandle {
        guard !Task.isCancelled else { throw .cancelled }
        // Its origin is the issuer, under the OAuth contract, so that later commands need no --server and
        // refuse one that says otherwise, as for any other session; its issuer's own endpoints serve it.
        var session = signedIn
        if let issuer = session.issuer, let url = URL(string: issuer.issuer) {
            session.origin = SessionOrigin(
                server: AppConfiguration.canonical(url), contract: ServerContract.oauth.rawValue,
                clientID: issuer.clientID)
        }
        let keychain: KeychainHandle
        do throws(SecureStoreError) {
            keychain = try store.open()
        } catch {
            throw .store(error)
        }
        let repository = SecureStoreSessionRepository(
            store: keychain.items, account: account, claimantIsGone: keychain.refreshClaimants.isGone)
        // A replaced session that cannot be read cannot be revoked; it is replaced all the same.
        let replaced = (try? repository.load()) ?? nil
        do throws(AuthenticationError) {
            try repository.replace(with: session)
        } catch {
            throw .auth(error)
        }
        if let replaced, !replaced.isSameGeneration(as: session),
            let gateway = AppContainer.revocationGateway(for: replaced, now: now)
        {
            try? await gateway.revoke(replaced.refreshToken)
        }
        return keychain
    }
}
