/// A command-line program rooted at one command: parses a command line, prints help or the version,
/// runs the chosen command, and turns every outcome into an exit status.
public struct CommandLineProgram: Sendable {
    /// The root command.
    let root: any Command.Type
    /// The exit status of a usage error.
    let usageStatus: Int32

    /// Creates the program.
    public init(_ root: any Command.Type, usageStatus: Int32 = 2) {
        self.root = root
        self.usageStatus = usageStatus
    }

    /// What `arguments` (without the program name) ask for.
    /// - Throws: ``UsageError`` for any mistake in the command line.
    func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError) -> Invocation {
        try CommandParser(root: root).parse(arguments, environment: environment)
    }

    /// Runs the command line given as the bytes of each argument (without the program name), refusing
    /// an argument that is not valid UTF-8 as a usage error rather than altering it.
    public func run(argumentBytes: [[UInt8]], environment: [String: String], output: ProgramOutput) async -> Int32 {
        switch ArgumentBytes.strings(argumentBytes) {
        case .success(let arguments):
            return await run(arguments, environment: environment, output: output)
        case .failure(let error):
            let problem = "argument \(error.position) is not valid UTF-8; it is refused rather than changed"
            output.standardError(UsageError(problem, commandPath: root.configuration.name).message)
            return usageStatus
        }
    }

    /// Runs the command line (without the program name) and returns the exit status.
    func run(_ arguments: [String], environment: [String: String], output: ProgramOutput) async -> Int32 {
        let invocation: Invocation
        do throws(UsageError) {
            invocation = try parse(arguments, environment: environment)
        } catch {
            output.standardError(error.message)
            return usageStatus
        }
        switch invocation {
        case .output(let text):
            output.standardOutput(text)
            return 0
        case .run(let command, let context):
            do throws(CommandError) {
                try await command.run(context)
                return 0
            } catch {
                output.standardError(error.message)
                return error.status
            }
        }
    }

    /// The help of the command named by `names` below the root (as far as they name commands).
    public func help(for names: [String]) -> String {
        var command = root
        var path = [root.configuration.name]
        for name in names {
            guard let next = command.configuration.subcommands.first(where: { $0.configuration.name == name }) else {
                break
            }
            command = next
            path.append(name)
        }
        return HelpRenderer.render(command, path: path)
    }
}
