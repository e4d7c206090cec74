/// The one help layout of every command: usage, abstract, subcommands, argument sections (the first one
/// with `--help`), discussion, environment, exit statuses, and for a group where to read more.
enum HelpRenderer {
    /// The help of `command`, reached by `path` (its name and its parents', from the program's).
    static func render(_ command: any Command.Type, path: [String]) -> String {
        let configuration = command.configuration
        let commandPath = path.joined(separator: " ")
        let subcommands = configuration.subcommands.filter { !$0.configuration.isHidden }
        var parts = [usage(command, path: commandPath), TextLayout.paragraph(configuration.abstract)]
        if !subcommands.isEmpty {
            parts.append(
                TextLayout.section(
                    configuration.subcommandsTitle,
                    subcommands.map { ($0.configuration.name, $0.configuration.abstract) }))
        }
        var sections = command.sections
        // `--help` is listed first: under Options for a leaf that has options (in an Options section of
        // its own when its options all stand in titled groups), else in the first section.
        let hasOptions = sections.contains { $0.declarations.contains { $0.kind != .positional } }
        if sections.isEmpty || (configuration.subcommands.isEmpty && hasOptions && sections[0].title != "Options") {
            sections.insert(ArgumentSection("Options", []), at: 0)
        }
        for (index, section) in sections.enumerated() {
            var declarations = section.declarations
            if index == 0 {
                declarations.append(Flag.help.declaration)
                if path.count == 1 && configuration.version != nil { declarations.append(Flag.version.declaration) }
            }
            parts.append(TextLayout.section(section.title, declarations.map { ($0.synopsis, $0.help) }))
            if let footer = section.footer { parts.append(TextLayout.paragraph(footer)) }
        }
        parts += configuration.discussion.map(TextLayout.paragraph)
        if !configuration.environment.isEmpty {
            parts.append(TextLayout.section("Environment", configuration.environment.map { ($0.name, $0.help) }))
        }
        if !configuration.exitStatuses.rows.isEmpty {
            parts.append(TextLayout.paragraph(configuration.exitStatuses.helpParagraph))
        }
        if !subcommands.isEmpty {
            let placeholder = configuration.subcommandPlaceholder
            parts.append("Run `\(commandPath) \(placeholder) --help` for a \(configuration.subcommandNoun)'s options.")
        }
        return parts.joined(separator: "\n\n")
    }

    /// `usage: PATH SYNOPSIS`, the synopsis the command's own or one made from its arguments.
    private static func usage(_ command: any Command.Type, path: String) -> String {
        let configuration = command.configuration
        let synopsis: String
        if let given = configuration.usage {
            synopsis = given
        } else if !configuration.subcommands.isEmpty {
            synopsis = "\(configuration.subcommandPlaceholder) [OPTIONS]"
        } else {
            let positionals = command.argumentDeclarations.filter { $0.kind == .positional }.map(\.usageSynopsis)
            synopsis = (["[OPTIONS]"] + positionals).joined(separator: " ")
        }
        return synopsis.isEmpty ? "usage: \(path)" : "usage: \(path) \(synopsis)"
    }
}
