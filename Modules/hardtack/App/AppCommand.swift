/// One app command (`signin`, `status`, `me`, …): its help, options, and what it does.
struct AppCommand: Sendable {
    /// The command as typed.
    let name: String
    /// What it does, in one line.
    let summary: String
    /// Its own options; the store and server options are added unless ``usesServer`` is false.
    let options: [OptionSpec]
    /// Its operands in usage form (`FILE`), empty for none.
    let operands: String
    /// Whether it talks to a server given by `--server` (and so takes the server options).
    let usesServer: Bool
    /// Whether it takes the store options (every command but the demo, which makes its own store).
    var usesStore = true
    /// Extra help paragraphs.
    let notes: [String]
    /// Runs the command with its operands.
    let run: @Sendable (AppContext, [String]) async throws(CommandFailure) -> Void

    /// Every option it accepts, in help order.
    var allOptions: [OptionSpec] {
        options + (usesServer ? AppOptions.all : []) + (usesStore ? GlobalOptions.all : [])
    }

    /// `hardtack NAME --help`.
    var help: String {
        var sections = [
            "usage: hardtack \(name) [OPTIONS]\(operands.isEmpty ? "" : " " + operands)",
            HelpText.paragraph(summary),
        ]
        sections.append(HelpText.options("Options", options + [.help]))
        if usesServer { sections.append(HelpText.options("Server options", AppOptions.all)) }
        if usesStore {
            sections.append(HelpText.options("Store options", GlobalOptions.all))
            sections.append(HelpText.paragraph(GlobalOptions.keyPrecedence))
        }
        sections += notes.map(HelpText.paragraph)
        sections.append(HelpText.paragraph(Self.exitHelp))
        return sections.joined(separator: "\n\n")
    }

    static let exitHelp =
        "Exit status: 0 success (for status: the main flow), 2 usage error, 3 not signed in or the session "
        + "ended (sign in again), 4 credentials refused, 65 damaged store, 69 server unavailable (the session "
        + "is kept), 75 store locked or unreadable, 76 the server's answer broke the contract, 77 wrong "
        + "passphrase or key, 1 anything else."

    /// Runs the command line after the command's name.
    func main(_ arguments: ArraySlice<String>, environment: [String: String]) async -> ExitStatus {
        let parser = OptionParser(options: allOptions, command: "hardtack \(name)")
        var parsed = ParsedOptions()
        var operandValues: [String] = []
        do throws(CommandFailure) {
            var rest = arguments
            parsing: while true {
                switch try parser.parse(rest, into: &parsed) {
                case .help:
                    Console.print(help)
                    return .success
                case .finished:
                    break parsing
                case .operand(let index):
                    operandValues.append(rest[index])
                    rest = rest[(index + 1)...]
                }
            }
            let expected = operands.isEmpty ? 0 : operands.split(separator: " ").filter { !$0.hasPrefix("[") }.count
            let allowed = operands.isEmpty ? 0 : operands.split(separator: " ").count
            guard operandValues.count >= expected && operandValues.count <= allowed else {
                throw parser.usage(operands.isEmpty ? "\(name) takes no arguments besides options" : "\(name) takes \(operands)")
            }
            try await run(AppContext(options: parsed, environment: environment, parser: parser), operandValues)
            return .success
        } catch {
            Console.error(error.message)
            return error.status
        }
    }
}
