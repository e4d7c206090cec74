/// A small getopt-style parser: `-x VALUE`, `--name VALUE`, `--name=VALUE`, flags, and `--` to end the
/// options. A value is taken as given even when it starts with `-` (so `-w -` reads standard input).
/// Error messages name options but never echo a value, which may be a secret.
struct OptionParser {
    /// What the parser stopped at.
    enum Outcome {
        /// Every argument was an option; nothing is left.
        case finished
        /// `--help` or `-h` was given.
        case help
        /// The first operand (an argument that is not an option) is at this index.
        case operand(Int)
    }

    /// The options this command line may hold.
    let options: [OptionSpec]
    /// How errors refer to the command (`hardtack keychain add-generic-password`), for the help hint.
    let command: String

    /// Parses `arguments` into `parsed` until the end, `--help`, or the first operand.
    /// - Throws: ``CommandFailure/usage(_:)`` for an unknown option, a missing value, or a
    ///   single-valued option given twice.
    func parse(_ arguments: ArraySlice<String>, into parsed: inout ParsedOptions) throws(CommandFailure) -> Outcome {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                return index + 1 < arguments.endIndex ? .operand(index + 1) : .finished
            }
            if argument == "--help" || argument == "-h" { return .help }
            guard argument.hasPrefix("-"), argument != "-" else { return .operand(index) }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw usage("unknown option \(Self.printable(name))")
            }
            if spec.valueName == nil {
                guard inlineValue == nil else { throw usage("\(name) takes no value") }
                parsed.set(name)
            } else {
                if !spec.isRepeatable && parsed.has(name) { throw usage("\(name) is given more than once") }
                if let inlineValue {
                    parsed.add(inlineValue, for: name)
                } else {
                    index += 1
                    guard index < arguments.endIndex else { throw usage("\(name) needs a value (\(spec.synopsis))") }
                    parsed.add(arguments[index], for: name)
                }
            }
            index += 1
        }
        return .finished
    }

    /// A usage failure that points at this command's help.
    func usage(_ problem: String) -> CommandFailure {
        .usage("\(problem). See `\(command) --help`.")
    }

    /// An unknown option's name when it looks like one, else a placeholder: a mistyped command line
    /// may hold a secret where an option was expected.
    private static func printable(_ name: String) -> String {
        let looksLikeOption =
            name.count <= 32
            && name.dropFirst(name.hasPrefix("--") ? 2 : 1).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        return looksLikeOption ? name : "(not shown)"
    }
}
