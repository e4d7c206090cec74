import Composition
import Data

/// `delete-generic-password` and `delete-internet-password`: delete every match.
enum DeletePasswordVerb {
    /// The verb for one password class.
    static func make(_ kind: PasswordKind) -> KeychainVerb {
        let all = kind.selectorOptions
        return KeychainVerb(
            name: "delete-\(kind.noun)", summary: "Delete every matching \(kind.itemClass.name).",
            synopsis: all.map { "[\($0.synopsis)]" }.joined(separator: " "), options: all,
            notes: [
                "Every option given must match, and at least one must be given. No match exits with status 44."
            ],
            run: { context throws(CommandFailure) in
                guard all.contains(where: { context.options.has($0.name) }) else {
                    throw context.usage(
                        "name the items to delete with at least one of " + all.map(\.name).joined(separator: ", "))
                }
                let query = try kind.attributes(context, allowed: all)
                let handle = try context.openExisting()
                let count: Int
                do throws(SecureStoreError) {
                    count = try handle.items.delete(query)
                } catch {
                    throw .store(error)
                }
                guard count > 0 else { throw .store(.itemNotFound) }
                Console.print("Deleted \(count) \(kind.itemClass.name)\(count == 1 ? "" : "s").")
            })
    }
}
