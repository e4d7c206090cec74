import CommandLineKit

/// `hardtack completion bash|zsh`: prints a shell completion script generated from the command tree.
struct CompletionCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "completion", abstract: "Print a shell completion script for bash or zsh.",
        discussion: [
            "bash: `source <(hardtack completion bash)` (or save it in ~/.local/share/bash-completion/completions/hardtack).",
            "zsh: `hardtack completion zsh > \"${fpath[1]}/_hardtack\"`, then start a new shell (or `source` it after "
                + "compinit).",
        ])

    /// The shell asked for.
    @Argument("SHELL", help: "bash or zsh.") var shell: String

    func validate() throws(UsageError) {
        guard ["bash", "zsh"].contains(shell) else { throw UsageError("completion takes bash or zsh") }
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        Console.print(shell == "bash" ? CompletionScript.bash(Hardtack.self) : CompletionScript.zsh(Hardtack.self))
    }
}
