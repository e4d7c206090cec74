/// Shell completion scripts generated from a command tree: every command's subcommands and options,
/// and file names after an option that takes a value. Hidden commands are left out.
public enum CompletionScript {
    /// One command as completion sees it: its path of names, and what may follow it.
    struct Node {
        /// The names from the root, joined by `/`: `hardtack/keychain/dump`.
        let path: String
        /// Subcommand names and option names, each with its one-line help.
        let words: [(word: String, help: String)]
        /// The options that take a value (file names are offered after them).
        let valueOptions: [String]
    }

    /// The bash script (`source <(PROGRAM completion bash)`); defines `_PROGRAM` and registers it.
    public static func bash(_ root: any Command.Type) -> String {
        let nodes = self.nodes(root)
        let name = root.configuration.name
        let function = "_" + identifier(name)
        var lines = [
            "# bash completion for \(name), generated from its command tree: source <(\(name) completion bash)",
            "\(function)() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" path=\"\(name)\" i",
            "    for ((i = 1; i < COMP_CWORD; i++)); do",
            "        case \"$path/${COMP_WORDS[i]}\" in",
            "            \(nodes.dropFirst().map { quoted($0.path) }.joined(separator: "|"))) path=\"$path/${COMP_WORDS[i]}\" ;;",
            "        esac",
            "    done",
            "    local words=\"\" values=\"\"",
            "    case \"$path\" in",
        ]
        for node in nodes {
            lines.append("        \(quoted(node.path)))")
            lines.append("            words=\(quoted(node.words.map(\.word).joined(separator: " ")))")
            lines.append("            values=\(quoted(node.valueOptions.joined(separator: " "))) ;;")
        }
        lines += [
            "    esac",
            "    if [[ -n \"$prev\" && \" $values \" == *\" $prev \"* ]]; then",
            "        COMPREPLY=($(compgen -f -- \"$cur\"))",
            "    else",
            "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))",
            "    fi",
            "}",
            "complete -o default -F \(function) \(name)",
        ]
        return lines.joined(separator: "\n")
    }

    /// The zsh script (put it in a directory on `$fpath` as `_PROGRAM`, or `source` it after `compinit`).
    public static func zsh(_ root: any Command.Type) -> String {
        let nodes = self.nodes(root)
        let name = root.configuration.name
        let function = "_" + identifier(name)
        var lines = [
            "#compdef \(name)",
            "# zsh completion for \(name), generated from its command tree: \(name) completion zsh > \"${fpath[1]}/_\(name)\"",
            "\(function)() {",
            "    local node=\(quoted(name)) i",
            "    for ((i = 2; i < CURRENT; i++)); do",
            "        case \"$node/${words[i]}\" in",
            "            (\(nodes.dropFirst().map { quoted($0.path) }.joined(separator: "|"))) node=\"$node/${words[i]}\" ;;",
            "        esac",
            "    done",
            "    local -a items values",
            "    case \"$node\" in",
        ]
        for node in nodes {
            let items = node.words.map { quoted(replacing(":", with: "\\:", in: $0.word) + ":" + $0.help) }
            lines.append("        (\(quoted(node.path))) items=(\(items.joined(separator: " "))) "
                + "values=(\(node.valueOptions.map(quoted).joined(separator: " "))) ;;")
        }
        lines += [
            "    esac",
            "    if (( ${values[(Ie)${words[CURRENT-1]}]} )); then",
            "        _files",
            "    else",
            "        _describe -t commands \(quoted(name)) items",
            "    fi",
            "}",
            "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then \(function) \"$@\"; else compdef \(function) \(name); fi",
        ]
        return lines.joined(separator: "\n")
    }

    /// Every visible command under `root`, root first, depth first.
    static func nodes(_ root: any Command.Type) -> [Node] {
        var nodes: [Node] = []
        func visit(_ command: any Command.Type, _ path: String, isRoot: Bool) {
            let configuration = command.configuration
            let named = command.argumentDeclarations.filter { $0.kind != .positional }
            var words = configuration.subcommands.filter { !$0.configuration.isHidden }.map {
                (word: $0.configuration.name, help: $0.configuration.abstract)
            }
            words += named.flatMap { declaration in declaration.names.map { (word: $0, help: declaration.help) } }
            words.append((word: "--help", help: "Show help."))
            if isRoot && configuration.version != nil { words.append((word: "--version", help: "Show the version.")) }
            let values = named.filter { $0.kind == .option }.flatMap(\.names)
            nodes.append(Node(path: path, words: words, valueOptions: values))
            for sub in configuration.subcommands where !sub.configuration.isHidden {
                visit(sub, path + "/" + sub.configuration.name, isRoot: false)
            }
        }
        visit(root, root.configuration.name, isRoot: true)
        return nodes
    }

    /// `text` in single quotes for the shell.
    private static func quoted(_ text: String) -> String {
        "'" + replacing("'", with: "'\\''", in: text) + "'"
    }

    private static func replacing(_ character: Character, with replacement: String, in text: String) -> String {
        String(text.flatMap { $0 == character ? Array(replacement) : [$0] })
    }

    /// A shell function name from the program's name.
    private static func identifier(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
