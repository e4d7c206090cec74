/// `hardtack keychain`: the `security`-shaped verbs over the encrypted store.
enum KeychainCommand {
    /// The command's name.
    static let name = "keychain"
    /// Its line in `hardtack --help`.
    static let summary = "Add, find and delete passwords in the encrypted store; dump, verify, change its key."

    /// Every verb, in help order.
    static let verbs: [KeychainVerb] = [
        AddPasswordVerb.make(.generic), FindPasswordVerb.make(.generic), DeletePasswordVerb.make(.generic),
        AddPasswordVerb.make(.internet), FindPasswordVerb.make(.internet), DeletePasswordVerb.make(.internet),
        DumpVerb.verb, VerifyVerb.verb, ChangePassphraseVerb.verb,
    ]

    private static let environmentHelp = HelpText.section(
        "Environment",
        [
            ("HARDTACK_PASSPHRASE", "The passphrase, when no --passphrase-file is given."),
            (ChangePassphraseVerb.newPassphraseVariable, "The new passphrase for change-passphrase."),
            ("HARDTACK_ARGON2_COST", "`interactive` lowers the cost of a new passphrase. For tests only."),
        ])

    private static let exitHelp = HelpText.paragraph(
        "Exit status: 0 success, 2 usage error, 44 item not found, 45 duplicate item, 65 damaged or tampered "
            + "store, 77 wrong passphrase or key, 1 anything else. Errors go to standard error, one line each.")

    /// `hardtack keychain --help`.
    static var help: String {
        """
        usage: hardtack keychain [GLOBAL OPTIONS] VERB [OPTIONS]

        Keeps passwords in one encrypted file, with verbs shaped like macOS `security`.

        \(HelpText.section("Verbs", verbs.map { ($0.name, $0.summary) }))

        \(HelpText.options("Global options (before or after the verb)", GlobalOptions.all + [.help]))

        \(HelpText.paragraph(GlobalOptions.keyPrecedence))

        \(environmentHelp)

        \(exitHelp)

        Run `hardtack keychain VERB --help` for a verb's options.
        """
    }

    /// `hardtack keychain VERB --help`.
    static func help(for verb: KeychainVerb) -> String {
        let usage = ["usage: hardtack keychain \(verb.name)", verb.synopsis, "[GLOBAL OPTIONS]"]
            .filter { !$0.isEmpty }.joined(separator: " ")
        var sections = [usage, HelpText.paragraph(verb.summary)]
        if !verb.options.isEmpty { sections.append(HelpText.options("Options", verb.options)) }
        sections.append(HelpText.options("Global options", GlobalOptions.all + [.help]))
        sections.append(HelpText.paragraph(GlobalOptions.keyPrecedence))
        sections += verb.notes.map(HelpText.paragraph)
        sections.append(exitHelp)
        return sections.joined(separator: "\n\n")
    }

    /// Runs `hardtack keychain` with the arguments after `keychain`.
    static func run(_ arguments: ArraySlice<String>, environment: [String: String]) -> ExitStatus {
        do throws(CommandFailure) {
            var parsed = ParsedOptions()
            let leading = OptionParser(options: GlobalOptions.all, command: "hardtack keychain")
            let verbIndex: Int
            switch try leading.parse(arguments, into: &parsed) {
            case .finished, .help:
                Console.print(help)
                return .success
            case .operand(let index):
                verbIndex = index
            }
            let verbName = arguments[verbIndex]
            guard let verb = verbs.first(where: { $0.name == verbName }) else {
                let shown = Hardtack.isWord(verbName) ? "'\(verbName)'" : "(not shown)"
                throw leading.usage("unknown keychain verb \(shown)")
            }
            let parser = OptionParser(
                options: verb.options + GlobalOptions.all, command: "hardtack keychain \(verb.name)")
            switch try parser.parse(arguments[(verbIndex + 1)...], into: &parsed) {
            case .help:
                Console.print(help(for: verb))
                return .success
            case .operand:
                throw parser.usage("\(verb.name) takes no arguments besides options; a value must follow its option")
            case .finished:
                break
            }
            try verb.run(KeychainContext(options: parsed, environment: environment, parser: parser))
            return .success
        } catch {
            Console.error(error.message)
            return error.status
        }
    }
}
