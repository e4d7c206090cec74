import Composition
import Data

/// `dump`: the attributes of every item the access groups can see, of all five classes; never a secret.
enum DumpVerb {
    /// The verb.
    static let verb: KeychainVerb = {
        let json = OptionSpec.flag("--json", "Print one JSON object instead of text.")
        return KeychainVerb(
            name: "dump", summary: "Show the attributes of every visible item (never the secrets).",
            synopsis: "[\(json.synopsis)]", options: [json],
            notes: [
                "Text: per item a `class:` line, then one indented `\"name\"<kind>=value` line per attribute, and "
                    + "a blank line between items; bytes are hex (0x…), dates ISO 8601 in UTC.",
                "JSON: {\"store\": PATH, \"items\": [{\"class\": …, \"attributes\": {…}}]}; bytes are base64 strings, "
                    + "integers are numbers, dates ISO 8601 strings.",
            ],
            run: { context throws(CommandFailure) in
                let configuration = try context.configuration()
                var items: [StoredItem] = []
                // No store yet: nothing to show, and nothing is created.
                if configuration.storeExists {
                let handle = try context.open(configuration)
                do throws(SecureStoreError) {
                    for itemClass in ItemClass.allCases {
                        do throws(SecureStoreError) {
                            items += try handle.items.find(
                                ItemAttributes(itemClass, [:]), limit: .all, returning: .attributes)
                        } catch .itemNotFound {
                            continue
                        }
                    }
                } catch {
                    throw .store(error)
                }
                }
                if context.options.has(json.name) {
                    let document = JSONValue.object([
                        ("store", .string(configuration.storePath)),
                        ("items", .array(items.map { AttributeText.json($0.itemClass, $0.attributes) })),
                    ])
                    Console.print(document.rendered())
                } else if !items.isEmpty {
                    let blocks = items.map { AttributeText.lines($0.itemClass, $0.attributes).joined(separator: "\n") }
                    Console.print(blocks.joined(separator: "\n\n"))
                }
            })
    }()
}
