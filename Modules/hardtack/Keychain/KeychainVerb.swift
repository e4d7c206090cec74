/// One `hardtack keychain` verb: its name, help, options and what it does.
struct KeychainVerb: Sendable {
    /// The verb as typed: `add-generic-password`.
    let name: String
    /// What it does, in one line.
    let summary: String
    /// Its options in usage-line form: `-s SERVICE -a ACCOUNT [-l LABEL]`.
    let synopsis: String
    /// Its own options (the global ones are added by the keychain command).
    let options: [OptionSpec]
    /// Extra help paragraphs.
    let notes: [String]
    /// Runs the verb; it checks its options before opening the store.
    let run: @Sendable (KeychainContext) throws(CommandFailure) -> Void
}
