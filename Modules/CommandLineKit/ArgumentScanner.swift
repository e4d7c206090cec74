/// Reads one command's part of the command line, getopt-style: `-x VALUE`, `--name VALUE`,
/// `--name=VALUE`, flags, `--` to end the options, and `--help`/`-h`. A value is taken as given even
/// when it starts with `-` (so `-w -` reads standard input). Errors name options but never echo a value.
struct ArgumentScanner {
    /// Where the scan stopped.
    enum Outcome: Equatable {
        /// The end of the arguments; these positionals were found on the way.
        case finished([String])
        /// `--help` or `-h`.
        case help
        /// `--version` (only when ``acceptsVersion``).
        case version
        /// The first positional, at this index: a group's subcommand.
        case subcommand(Int)
    }

    /// The named arguments (flags and options) this command accepts.
    let named: [ArgumentDeclaration]
    /// Whether to stop at the first positional, which names a subcommand.
    let stopsAtFirstPositional: Bool
    /// Whether `--version` is recognized.
    let acceptsVersion: Bool

    /// Scans `arguments` into `values` until the end, `--help`, `--version` or (for a group) the first
    /// positional.
    /// - Throws: ``UsageError`` for an unknown option, a value given to a flag, a missing value, or a
    ///   single-valued option given twice (counting what `values` already holds from a parent).
    func scan(_ arguments: ArraySlice<String>, into values: inout ParsedValues) throws(UsageError) -> Outcome {
        var positionals: [String] = []
        var optionsEnded = false
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            let isOption = !optionsEnded && argument.hasPrefix("-") && argument != "-"
            if !isOption {
                if stopsAtFirstPositional { return .subcommand(index) }
                positionals.append(argument)
                index += 1
                continue
            }
            if argument == "--" {
                optionsEnded = true
                index += 1
                continue
            }
            if Flag.help.declaration.names.contains(argument) { return .help }
            if acceptsVersion && argument == Flag.version.declaration.names[0] { return .version }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else if !argument.hasPrefix("--"), argument.count > 2,
                !named.contains(where: { $0.names.contains(argument) }),
                named.contains(where: { $0.kind != .flag && $0.names.contains(String(argument.prefix(2))) })
            {
                // A short option's value written on (`-wSecret`), as getopt and `security` take it. What
                // follows the option's letter is a value, perhaps a secret: never echoed, even when wrong.
                name = String(argument.prefix(2))
                inlineValue = String(argument.dropFirst(2))
            }
            guard let declaration = named.first(where: { $0.names.contains(name) }) else {
                throw values.usageError("unknown option \(Echo.option(name))")
            }
            if declaration.kind == .flag {
                guard inlineValue == nil else { throw values.usageError("\(name) takes no value") }
                values.set(declaration)
            } else {
                if !declaration.isRepeatable && values.has(declaration) {
                    throw values.usageError("\(name) is given more than once")
                }
                if let inlineValue {
                    values.add(inlineValue, for: declaration)
                } else {
                    index += 1
                    if index < arguments.endIndex {
                        values.add(arguments[index], for: declaration)
                    } else if declaration.mayOmitValueAtEnd {
                        values.setWithoutValue(declaration)
                    } else {
                        throw values.usageError("\(name) needs a value (\(declaration.synopsis))")
                    }
                }
            }
            index += 1
        }
        return .finished(positionals)
    }
}
