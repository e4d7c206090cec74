import Composition
import Data

/// `find-generic-password` and `find-internet-password`: show the first match's attributes, or with
/// `-w` only its secret.
enum FindPasswordVerb {
    /// The verb for one password class.
    static func make(_ kind: PasswordKind) -> KeychainVerb {
        let secretOnly = OptionSpec.flag("-w", "Print only the secret and a newline, not the attributes.")
        let all = kind.selectorOptions + [secretOnly]
        return KeychainVerb(
            name: "find-\(kind.noun)", summary: "Show the first matching \(kind.itemClass.name) (-w: its secret).",
            synopsis: all.map { "[\($0.synopsis)]" }.joined(separator: " "), options: all,
            notes: [
                "Every option given must match; none matches any \(kind.itemClass.name). Without -w the secret is "
                    + "never printed. No match exits with status 44."
            ],
            run: { context throws(CommandFailure) in
                let query = try kind.attributes(context, allowed: kind.selectorOptions)
                let handle = try context.openExisting()
                do throws(SecureStoreError) {
                    if context.options.has(secretOnly.name) {
                        let items = try handle.items.find(query, limit: .one, returning: .data)
                        guard let data = items.first?.data else { throw SecureStoreError.itemNotFound }
                        Console.printSecret(data)
                    } else {
                        let items = try handle.items.find(query, limit: .one, returning: .attributes)
                        guard let item = items.first else { throw SecureStoreError.itemNotFound }
                        Console.print(AttributeText.lines(item.itemClass, item.attributes).joined(separator: "\n"))
                    }
                } catch {
                    throw .store(error)
                }
            })
    }
}
