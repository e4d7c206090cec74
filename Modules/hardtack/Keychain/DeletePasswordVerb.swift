import CommandLineKit
import Composition
import Data

/// `delete-generic-password` and `delete-internet-password`: delete every match.
struct DeletePasswordVerb<Class: PasswordClass>: HardtackCommand {
    static var configuration: CommandConfiguration {
        let kind = Class.kind
        return KeychainVerbs.configuration(
            Self.self, name: "delete-\(kind.noun)", abstract: "Delete every matching \(kind.itemClass.name).",
            discussion: [
                "Every option given must match, and at least one must be given. No match exits with status 44."
            ])
    }

    /// The attributes to match; at least one.
    @OptionTable(Class.kind.selectorOptions) var values: [AttributeName: AttributeValue]
    /// The store.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func validate() throws(UsageError) {
        guard !values.isEmpty else {
            let names = Class.kind.selectorOptions.map { $0.option.declaration.names[0] }
            throw UsageError("name the items to delete with at least one of " + names.joined(separator: ", "))
        }
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let kind = Class.kind
        let query = try kind.attributes(values)
        let handle = try store.openExisting(context)
        let count: Int
        do throws(SecureStoreError) {
            count = try await handle.items.delete(query)
        } catch {
            throw .store(error)
        }
        guard count > 0 else { throw .store(.itemNotFound) }
        Console.print("Deleted \(count) \(kind.itemClass.name)\(count == 1 ? "" : "s").")
    }
}
