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
                "Every option given must match, and at least one must be given. No match exits with status 44.",
                "A signed-in session's items (service hardtack.session…) and the gateway's (hardtack.gateway…) are "
                    + "never deleted here (exit 2, nothing deleted): `hardtack signout` ends a session.",
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
        if let refusal = ReservedServices.refusal(query) { throw context.usage(refusal) }
        let handle = try await store.openExisting(context)
        let outcome: Deletion
        do {
            // The matches are looked at and deleted in one transaction, on the store's threads (the store's
            // async `transaction` loses to the synchronous requirement on `any SecureItemStore`).
            let items = handle.items
            outcome = try await StoreThreads.run { () throws -> Deletion in
                try items.transaction { transaction throws -> Deletion in try Self.delete(query, in: transaction) }
            }
        } catch let error as SecureStoreError {
            throw .store(error)
        } catch {
            throw .store(.storage(.store("the delete failed unexpectedly: \(error)")))
        }
        switch outcome {
        case .refused(let refusal):
            throw context.usage(refusal)
        case .deleted(let count):
            guard count > 0 else { throw .store(.itemNotFound) }
            Console.print("Deleted \(count) \(kind.itemClass.name)\(count == 1 ? "" : "s").")
        }
    }

    /// Deletes what `query` matches unless a match is a session's or the gateway's item (a query that
    /// names no service may still match them): then nothing is deleted.
    private static func delete(_ query: ItemAttributes, in transaction: any SecureItemTransaction) throws -> Deletion {
        let matches: [StoredItem]
        do throws(SecureStoreError) {
            matches = try transaction.find(query, limit: .all, returning: .attributes)
        } catch .itemNotFound {
            return .deleted(0)
        }
        for match in matches {
            if let attributes = match.attributes, let refusal = ReservedServices.refusal(attributes) {
                return .refused(refusal)
            }
        }
        return .deleted(try transaction.delete(query))
    }

    /// What the transaction did: deleted this many items, or nothing, for this reason.
    private enum Deletion {
        case deleted(Int)
        case refused(String)
    }
}
