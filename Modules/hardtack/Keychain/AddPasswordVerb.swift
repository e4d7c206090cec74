import CommandLineKit
import Composition
import Data
import Domain

/// `add-generic-password` and `add-internet-password`: add an item, or with `-U` add or update it.
struct AddPasswordVerb<Class: PasswordClass>: HardtackCommand {
    static var configuration: CommandConfiguration {
        let kind = Class.kind
        return KeychainVerbs.configuration(
            Self.self, name: "add-\(kind.noun)",
            abstract: "Add \(kind.article) \(kind.itemClass.name) (-U: or update it).",
            discussion: [
                "Without -U, adding an item whose unique key (access group, "
                    + kind.uniqueKey.compactMap { attribute in
                        kind.attributeOptions.first { $0.key == attribute }?.option.declaration.names[0]
                    }.joined(separator: ", ") + ") is taken fails with status 45.",
                "An attribute of the unique key left out counts as empty, as with macOS `security`."
                    + (kind == .internet ? " -r takes one of: " + PasswordKind.knownProtocols.joined(separator: ", ") + "."
                        : ""),
                "A signed-in session's items (service hardtack.session…) and the gateway's (hardtack.gateway…) are "
                    + "never written here (exit 2): only signin, refresh and signout write a session.",
                "A secret given as `-w SECRET` is visible to other users of this machine (ps, /proc) and may land in "
                    + "your shell history; prefer `-w -` and pipe it in.",
            ])
    }

    /// The attributes given.
    @OptionTable(Class.kind.addOptions) var values: [AttributeName: AttributeValue]
    /// `-w`: the secret; `-w -`, or `-w` last with no value, reads it from standard input or a prompt.
    @Option(
        "-w", value: "SECRET",
        help: "The secret. `-w -` reads it from standard input (all of it, less one trailing newline; at a "
            + "terminal it prompts, with echo off); `-w` last on the line with no value prompts too.")
    var secret: OmittableValue<String>
    /// `-U`: add or update.
    @Flag("-U", help: "Update the item when it exists (an atomic add-or-update).") var update: Bool
    /// The store.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let attributes = try Class.kind.attributes(values)
        if let refusal = ReservedServices.refusal(attributes) { throw context.usage(refusal) }
        let data = try readSecret()
        try await store.withStore(context) { handle async throws(CommandFailure) in
            do throws(SecureStoreError) {
                if update {
                    try await handle.items.addOrUpdate(attributes, data: data)
                } else {
                    try await handle.items.add(attributes, data: data)
                }
            } catch {
                throw .store(error)
            }
        }
    }

    /// The secret from `-w`: the value itself; else (`-w -`, or `-w` last with no value), at a terminal,
    /// typed twice at a prompt with echo off; else all of standard input.
    private func readSecret() throws(CommandFailure) -> SecretBytes {
        if case .given(let value) = secret, value != "-" { return SecretBytes(utf8: value) }
        if Console.inputIsTerminal {
            switch Console.readSecretTwice(prompt: "Secret for the new \(Class.kind.itemClass.name): ") {
            case .typed(let secret): return secret
            case .tooLong:
                throw .finding(.failure, "the secret is too long to type (at most 4,095 bytes); pipe it in with -w -")
            case .empty: throw .finding(.failure, "no secret was typed; nothing was added")
            case .differ: throw .finding(.failure, "the two secrets typed differ; nothing was added")
            }
        }
        guard let data = Console.readSecretFromStandardInput() else {
            throw .finding(
                .failure, "could not read the secret from standard input (at most \(Console.maxInputBytes) bytes)")
        }
        return data
    }
}
