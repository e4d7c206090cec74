import CommandLineKit
import Composition
import Data

extension StoreOptions {
    /// Opens (creating on first use) and unlocks the store a configuration describes.
    /// - Throws: ``CommandFailure/store(_:)`` with the store's reason.
    static func open(_ configuration: StoreConfiguration) throws(CommandFailure) -> KeychainHandle {
        do throws(SecureStoreError) {
            return try configuration.open()
        } catch {
            throw .store(error)
        }
    }

    /// Opens (creating on first use) and unlocks the store these options describe.
    func open(_ context: CommandContext) throws(CommandFailure) -> KeychainHandle {
        try Self.open(configuration(context))
    }

    /// Opens the store only if it exists: verbs that read or remove never create one.
    /// - Throws: ``CommandFailure/finding(_:_:)`` with exit 44 when there is no store.
    /// With `onlyReads`, a store on read-only media is opened read-only.
    func openExisting(_ context: CommandContext, onlyReads: Bool = false) throws(CommandFailure) -> KeychainHandle {
        let configuration = try configuration(context, onlyReads: onlyReads)
        guard configuration.storeExists else {
            throw .finding(.notFound, "there is no store at \(configuration.displayLocation) yet; add an item first")
        }
        return try Self.open(configuration)
    }
}
