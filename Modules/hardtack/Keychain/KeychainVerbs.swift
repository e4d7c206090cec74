import CommandLineKit

/// What every `hardtack keychain` verb shares: its usage line, the title of its global options, its exit
/// statuses and the hint for a stray argument.
enum KeychainVerbs {
    /// The title of the section that lists the global options (``StoreArguments``) after a verb's own.
    static let globalTitle = "Global options"

    /// A verb's configuration, its usage made from its own arguments unless `usage` is given.
    static func configuration<Verb: ParsableArguments>(
        _ verb: Verb.Type, name: String, abstract: String, usage: String? = nil, discussion: [String]
    ) -> CommandConfiguration {
        let synopsis = usage ?? verb.usageSynopsis
        return CommandConfiguration(
            name: name, abstract: abstract,
            usage: [synopsis, "[GLOBAL OPTIONS]"].filter { !$0.isEmpty }.joined(separator: " "),
            discussion: discussion, exitStatuses: ExitStatus.keychainTable,
            strayArgumentHint: "a value must follow its option")
    }
}
