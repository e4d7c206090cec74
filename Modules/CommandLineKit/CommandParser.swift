/// Walks a command line down a tree of commands: each level's options, then a subcommand or the leaf's
/// positionals, then the leaf's checks (required options, non-empty values, positional count), then its
/// decoding. Options read before a subcommand stay in the values, so a subcommand that declares the same
/// options (the keychain's store options, say) accepts them before or after its name.
struct CommandParser {
    /// The root command, whose name is the program's.
    let root: any Command.Type

    /// What `arguments` (without the program name) ask for.
    /// - Throws: ``UsageError`` for any mistake in the command line.
    func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Invocation {
        var command = root
        var path = [root.configuration.name]
        var values = ParsedValues(commandPath: path[0])
        var rest = arguments[...]
        while true {
            let configuration = command.configuration
            let isGroup = !configuration.subcommands.isEmpty
            let scanner = ArgumentScanner(
                named: command.argumentDeclarations.filter { $0.kind != .positional }, stopsAtFirstPositional: isGroup,
                acceptsVersion: path.count == 1 && configuration.version != nil)
            switch try scanner.scan(rest, into: &values) {
            case .help:
                return .output(HelpRenderer.render(command, path: path))
            case .version:
                return .output("\(configuration.name) \(configuration.version ?? "")")
            case .subcommand(let index):
                let name = rest[index]
                guard let next = configuration.subcommands.first(where: { $0.configuration.name == name }) else {
                    throw values.usageError("unknown \(configuration.subcommandNoun) \(Echo.word(name))")
                }
                command = next
                rest = rest[(index + 1)...]
            case .finished(let positionals):
                if isGroup {
                    guard let fallback = configuration.defaultSubcommand else {
                        return .output(HelpRenderer.render(command, path: path))
                    }
                    command = fallback
                    rest = []
                } else {
                    try assign(positionals, of: command, to: &values)
                    try check(command, values)
                    let context = CommandContext(commandPath: values.commandPath, environment: environment, values: values)
                    return .run(try command.init(from: values), context)
                }
            }
            path.append(command.configuration.name)
            values.commandPath = path.joined(separator: " ")
        }
    }

    /// Hands the positionals to the leaf's positional declarations, in order.
    private func assign(_ positionals: [String], of command: any Command.Type, to values: inout ParsedValues)
        throws(UsageError)
    {
        let declarations = command.argumentDeclarations.filter { $0.kind == .positional }
        var left = positionals[...]
        for declaration in declarations {
            if declaration.isRepeatable {
                if left.isEmpty && declaration.isRequired { throw countError(command, declarations, values) }
                for text in left { values.add(text, for: declaration) }
                left = []
            } else if let text = left.popFirst() {
                values.add(text, for: declaration)
            } else if declaration.isRequired {
                throw countError(command, declarations, values)
            }
        }
        guard left.isEmpty else { throw countError(command, declarations, values) }
    }

    private func countError(_ command: any Command.Type, _ positionals: [ArgumentDeclaration], _ values: ParsedValues)
        -> UsageError
    {
        let configuration = command.configuration
        guard !positionals.isEmpty else {
            let hint = configuration.strayArgumentHint.map { "; \($0)" } ?? ""
            return values.usageError("\(configuration.name) takes no arguments besides options\(hint)")
        }
        return values.usageError(
            "\(configuration.name) takes \(positionals.map(\.usageSynopsis).joined(separator: " "))")
    }

    /// Required options present, and no empty value where one is refused.
    private func check(_ command: any Command.Type, _ values: ParsedValues) throws(UsageError) {
        let options = command.argumentDeclarations.filter { $0.kind == .option }
        for option in options where option.isRequired && !values.has(option) {
            throw values.usageError("\(option.synopsis) is required")
        }
        for option in options where !option.allowsEmpty && values.texts(of: option).contains("") {
            throw values.usageError("\(option.names[0]) needs a non-empty value")
        }
    }
}
