import CommandLineKit

/// A verb with a `-w VALUE` short option, a short flag, and the group's options.
struct RemoteAdd: Command {
    static let secret = Option<String>("-w", value: "SECRET", help: "The secret; `-w -` reads standard input.").required()
    static let update = Flag("-U", help: "Update when it exists.")

    static let configuration = CommandConfiguration(
        name: "add", abstract: "Add a remote.",
        usage: ArgumentSection("", [secret, update]).synopsis + " [GLOBAL OPTIONS]",
        strayArgumentHint: "a value must follow its option")
    static let sections = [
        ArgumentSection("Options", [secret, update]), ArgumentSection("Global options", SharedOptions.declarations),
    ]

    let secret: String
    let update: Bool
    let shared: SharedOptions

    init(from values: ParsedValues) throws(UsageError) {
        secret = try values.value(Self.secret) ?? ""
        update = values.isSet(Self.update)
        shared = try SharedOptions(from: values)
    }
}
