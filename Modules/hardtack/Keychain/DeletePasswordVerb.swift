import CommandLineKit
import Composition
import Data

/// `delete-generic-password` and `delete-internet-password`: delete every match.
struct DeletePasswordVerb<Class: PasswordClass>: HardtackCommand {
    static var options: [any ArgumentDeclaring] { Class.kind.selectorOptions.map(\.option) }

    static var configuration: CommandConfiguration {
        let kind = Class.kind
        return KeychainVerbs.configuration(
            name: "delete-\(kind.noun)", abstract: "Delete every matching \(kind.itemClass.name).", options: options,
            discussion: ["Every option given must match, and at least one must be given. No match exits with status 44."])
    }
    static var sections: [ArgumentSection] { KeychainVerbs.sections(options) }

    /// The attributes to match; at least one.
    let values: [AttributeName: AttributeValue]
    /// The store.
    let store: StoreArguments

    init(from values: ParsedValues) throws(UsageError) {
        self.values = try Class.kind.values(Class.kind.selectorOptions, from: values)
        guard !self.values.isEmpty else {
            let names = Self.options.map { $0.declaration.names[0] }
            throw values.usageError("name the items to delete with at least one of " + names.joined(separator: ", "))
        }
        store = try StoreArguments(from: values)
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let kind = Class.kind
        let query = try kind.attributes(values)
        let handle = try store.openExisting(context)
        let count: Int
        do throws(SecureStoreError) {
            count = try handle.items.delete(query)
        } catch {
            throw .store(error)
        }
        guard count > 0 else { throw .store(.itemNotFound) }
        Console.print("Deleted \(count) \(kind.itemClass.name)\(count == 1 ? "" : "s").")
    }
}
