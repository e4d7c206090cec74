import CommandLineKit

/// `hardtack completion bash|zsh`: prints a shell completion script generated from the command tree.
struct CompletionCommand: HardtackCommand {
    static let shell = Positional<String>("SHELL", help: "bash or zsh.")

    static let configuration = CommandConfiguration(
        name: "completion", abstract: "Print a shell completion script for bash or zsh.",
        discussion: [
            "bash: `source <(hardtack completion bash)` (or save it in ~/.local/share/bash-completion/completions/hardtack).",
            "zsh: `hardtack completion zsh > \"${fpath[1]}/_hardtack\"`, then start a new shell (or `source` it after "
                + "compinit).",
        ])
    static let sections = [ArgumentSection("Arguments", [shell])]

    /// The shell asked for.
    let shell: String

    init(from values: ParsedValues) throws(UsageError) {
        shell = try values.value(Self.shell) ?? ""
        guard ["bash", "zsh"].contains(shell) else { throw values.usageError("completion takes bash or zsh") }
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        Console.print(shell == "bash" ? CompletionScript.bash(Hardtack.self) : CompletionScript.zsh(Hardtack.self))
    }
}
