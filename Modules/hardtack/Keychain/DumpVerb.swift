import CommandLineKit
import Composition
import Data

/// `dump`: the attributes of every item the access groups can see, of all five classes; never a secret.
struct DumpVerb: HardtackCommand {
    static let configuration = KeychainVerbs.configuration(
        DumpVerb.self, name: "dump", abstract: "Show the attributes of every visible item (never the secrets).",
        discussion: [
            "Text: per item a `class:` line, then one indented `\"name\"<kind>=value` line per attribute, and "
                + "a blank line between items; bytes are hex (0x…), dates ISO 8601 in UTC.",
            "JSON: {\"store\": PATH, \"items\": [{\"class\": …, \"attributes\": {…}}]}; bytes are base64 strings, "
                + "integers are numbers, dates ISO 8601 strings.",
        ])

    /// `--json`.
    @Flag("--json", help: "Print one JSON object instead of text.") var json: Bool
    /// The store.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let configuration = try store.configuration(context, onlyReads: true)
        var items: [StoredItem] = []
        // No store yet: nothing to show, and nothing is created.
        if await configuration.storeExists {
            let handle = try await StoreArguments.open(configuration)
            do throws(SecureStoreError) {
                for itemClass in ItemClass.allCases {
                    do throws(SecureStoreError) {
                        await items += try handle.items.find(
                            ItemAttributes(itemClass, [:]), limit: .all, returning: .attributes)
                    } catch .itemNotFound {
                        continue
                    }
                }
            } catch {
                throw .store(error)
            }
        }
        if json {
            let document = JSONValue.object([
                ("store", .string(configuration.displayLocation)),
                ("items", .array(items.map { AttributeText.json($0.itemClass, $0.attributes) })),
            ])
            Console.print(document.rendered())
        } else if !items.isEmpty {
            let blocks = items.map { AttributeText.lines($0.itemClass, $0.attributes).joined(separator: "\n") }
            Console.print(blocks.joined(separator: "\n\n"))
        }
    }
}
