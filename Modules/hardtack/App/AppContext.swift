import Composition
import Data
import Domain

/// What an app command runs with: its options, the environment, and a way to build the app once its
/// own options are checked (so a usage error never creates a store).
struct AppContext {
    /// The command's options, shared ones included.
    let options: ParsedOptions
    /// The process environment.
    let environment: [String: String]
    /// The parser that read the options.
    let parser: OptionParser

    /// Builds the app from the options: opens the store, points at the server.
    /// - Parameter creatingStore: whether a missing store may be created (sign-in); otherwise a
    ///   missing store means "not signed in" and nothing is created.
    func app(creatingStore: Bool = false) throws(CommandFailure) -> AppContainer {
        let configuration = try AppOptions.configuration(self)
        guard creatingStore || configuration.store.storeExists else { throw .auth(.notSignedIn) }
        do throws(SecureStoreError) {
            return try AppContainer(configuration)
        } catch {
            throw .store(error)
        }
    }

    /// A usage failure pointing at the command's help.
    func usage(_ problem: String) -> CommandFailure { parser.usage(problem) }
}

/// Runs an authentication step, turning its error into a command failure.
func authStep<Value>(_ body: () async throws(AuthenticationError) -> Value) async throws(CommandFailure) -> Value {
    do throws(AuthenticationError) {
        return try await body()
    } catch {
        throw .auth(error)
    }
}
