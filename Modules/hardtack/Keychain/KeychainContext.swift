import Composition
import Data

/// What a keychain verb runs with: its parsed options, the environment, and a way to open the store
/// once its own options have been checked (so a usage error never creates a store).
struct KeychainContext {
    /// The verb's options, global ones included.
    let options: ParsedOptions
    /// The process environment.
    let environment: [String: String]
    /// The parser that read the options, for usage errors that point at the verb's help.
    let parser: OptionParser

    /// The store configuration the global options describe.
    /// - Throws: see ``GlobalOptions/configuration(_:environment:parser:)``.
    func configuration() throws(CommandFailure) -> StoreConfiguration {
        try GlobalOptions.configuration(options, environment: environment, parser: parser)
    }

    /// Opens (creating on first use) and unlocks the store.
    /// - Throws: ``CommandFailure/store(_:)`` with the store's reason.
    func open(_ configuration: StoreConfiguration) throws(CommandFailure) -> KeychainHandle {
        do throws(SecureStoreError) {
            return try configuration.open()
        } catch {
            throw .store(error)
        }
    }

    /// Opens the store the global options describe.
    func open() throws(CommandFailure) -> KeychainHandle {
        try open(configuration())
    }

    /// Opens the store only if it exists: verbs that read or remove never create one.
    /// - Throws: ``CommandFailure/finding(_:_:)`` with exit 44 when there is no store.
    func openExisting() throws(CommandFailure) -> KeychainHandle {
        let configuration = try configuration()
        guard configuration.storeExists else {
            throw .finding(.notFound, "there is no store at \(configuration.storePath) yet; add an item first")
        }
        return try open(configuration)
    }

    /// A usage failure pointing at the verb's help.
    func usage(_ problem: String) -> CommandFailure { parser.usage(problem) }
}
