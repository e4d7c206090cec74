import Data
import Domain
import Foundation

/// Where the browser's and the device's flows end: in the ``SignIn`` use case, like every sign-in.
extension AppContainer {
    /// Signs in with a session an issuer has just issued to a flow that made the exchange itself. Only
    /// now is the store opened (or created), so a flow that failed or was cancelled before leaves none
    /// behind. The session's origin is its issuer, under the OAuth contract, so that later commands need
    /// no server named and refuse one that says otherwise; the session it replaces is revoked where
    /// that one came from.
    /// - Returns: the stored session and the app over its store.
    /// - Throws: ``SignInFailure/cancelled`` when the flow was cancelled before anything was stored, and
    ///   the store's failures.
    static func signIn(
        issued: Session, issuer: URL, clientID: String, store: StoreConfiguration, account: AccountName,
        now: @escaping @Sendable () -> Date
    ) async throws(SignInFailure) -> (Session, AppContainer) {
        guard !Task.isCancelled else { throw .cancelled }
        let server = issued.issuer.flatMap { URL(string: $0.issuer) } ?? issuer
        var configuration = AppConfiguration(
            store: store, server: .remote(server), contract: .oauth, clientID: issued.issuer?.clientID ?? clientID,
            now: now)
        configuration.account = account
        let app: AppContainer
        do throws(SecureStoreError) {
            app = try await AppContainer(configuration)
        } catch {
            throw .store(error)
        }
        do throws(AuthenticationError) {
            return (try await app.signIn(issued: issued), app)
        } catch {
            throw .auth(error)
        }
    }
}
