import CommandLineKit
import Composition
import Data

/// `find-generic-password` and `find-internet-password`: show the first match's attributes, or with
/// `-w` only its secret.
struct FindPasswordVerb<Class: PasswordClass>: HardtackCommand {
    static var configuration: CommandConfiguration {
        let kind = Class.kind
        return KeychainVerbs.configuration(
            Self.self, name: "find-\(kind.noun)",
            abstract: "Show the first matching \(kind.itemClass.name) (-w: its secret).",
            discussion: [
                "Every option given must match; none matches any \(kind.itemClass.name). Without -w the secret is "
                    + "never printed. No match exits with status 44.",
                "JSON: {\"class\": …, \"attributes\": {…}} as one item of `dump --json`: bytes are base64 strings, "
                    + "integers are numbers, dates ISO 8601 strings in UTC.",
            ])
    }

    /// The attributes to match.
    @OptionTable(Class.kind.selectorOptions) var values: [AttributeName: AttributeValue]
    /// `-w`: print only the secret.
    @Flag("-w", help: "Print only the secret and a newline, not the attributes.") var secretOnly: Bool
    /// `--json`: the attributes as JSON.
    @Flag("--json", help: "Print the attributes as one JSON object instead of text (not with -w).") var json: Bool
    /// The store.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func validate() throws(UsageError) {
        if secretOnly && json { throw UsageError("-w prints only the secret; --json prints only attributes: give one") }
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let query = try Class.kind.attributes(values)
        let handle = try await store.openExisting(context, onlyReads: true)
        do throws(SecureStoreError) {
            if secretOnly {
                let items = try await handle.items.find(query, limit: .one, returning: .data)
                guard let data = items.first?.data else { throw SecureStoreError.itemNotFound }
                Console.printSecret(data)
            } else {
                let items = try await handle.items.find(query, limit: .one, returning: .attributes)
                guard let item = items.first else { throw SecureStoreError.itemNotFound }
                Console.print(
                    json
                        ? AttributeText.json(item.itemClass, item.attributes).rendered()
                        : AttributeText.lines(item.itemClass, item.attributes).joined(separator: "\n"))
            }
        } catch {
            throw .store(error)
        }
    }
}
