import Composition
import Data
import Domain

/// `add-generic-password` and `add-internet-password`: add an item, or with `-U` add or update it.
enum AddPasswordVerb {
    /// The verb for one password class.
    static func make(_ kind: PasswordKind) -> KeychainVerb {
        let secret = OptionSpec.value(
            "-w", "SECRET", "The secret. `-w -` reads it from standard input (all of it, less one trailing newline).")
        let update = OptionSpec.flag("-U", "Update the item when it exists (an atomic add-or-update).")
        let attributeSpecs = kind.attributeOptions.map(\.spec)
        let required = kind.requiredForAdd + [secret.name]
        let all = attributeSpecs + [secret, update]
        let synopsis =
            all.filter { required.contains($0.name) }.map(\.synopsis).joined(separator: " ") + " "
            + all.filter { !required.contains($0.name) }.map { "[\($0.synopsis)]" }.joined(separator: " ")
        return KeychainVerb(
            name: "add-\(kind.noun)", summary: "Add \(kind.article) \(kind.itemClass.name) (-U: or update it).",
            synopsis: synopsis, options: all,
            notes: [
                "Without -U, adding an item whose unique key (access group, "
                    + kind.requiredForAdd.joined(separator: ", ") + ") is taken fails with status 45.",
                "A secret given as `-w SECRET` is visible to other users of this machine (ps, /proc) and may land in "
                    + "your shell history; prefer `-w -` and pipe it in.",
            ],
            run: { context throws(CommandFailure) in
                for name in required where !context.options.has(name) {
                    let spec = all.first { $0.name == name }!
                    throw context.usage("\(spec.synopsis) is required")
                }
                let attributes = try kind.attributes(context, allowed: attributeSpecs)
                let data = try readSecret(context.options.value(secret.name) ?? "")
                let handle = try context.open()
                do throws(SecureStoreError) {
                    if context.options.has(update.name) {
                        try handle.items.addOrUpdate(attributes, data: data)
                    } else {
                        try handle.items.add(attributes, data: data)
                    }
                } catch {
                    throw .store(error)
                }
            })
    }

    /// The secret from `-w`: the value itself, or standard input for `-`.
    private static func readSecret(_ value: String) throws(CommandFailure) -> SecretBytes {
        guard value == "-" else { return SecretBytes(utf8: value) }
        guard let data = Console.readSecretFromStandardInput() else {
            throw .finding(
                .failure, "could not read the secret from standard input (at most \(Console.maxInputBytes) bytes)")
        }
        return data
    }
}
