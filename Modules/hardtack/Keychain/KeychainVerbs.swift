import CommandLineKit

/// What every `hardtack keychain` verb shares: its usage line, its global options, its exit statuses and
/// the hint for a stray argument.
enum KeychainVerbs {
    /// The section of global options every verb lists after its own.
    static let globalSection = StoreArguments.section("Global options")

    /// A verb's configuration, its usage made from its own options unless `usage` is given.
    static func configuration(
        name: String, abstract: String, options: [any ArgumentDeclaring], usage: String? = nil, discussion: [String]
    ) -> CommandConfiguration {
        let synopsis = usage ?? ArgumentSection("", options).synopsis
        return CommandConfiguration(
            name: name, abstract: abstract,
            usage: [synopsis, "[GLOBAL OPTIONS]"].filter { !$0.isEmpty }.joined(separator: " "),
            discussion: discussion, exitStatuses: ExitStatus.keychainTable,
            strayArgumentHint: "a value must follow its option")
    }

    /// A verb's sections: its own options, then the global ones.
    static func sections(_ options: [any ArgumentDeclaring]) -> [ArgumentSection] {
        [ArgumentSection("Options", options), globalSection]
    }
}
