import CommandLineKit

/// A verb declared with static values that embeds groups as the app's unconverted commands do: one
/// declared with static values, and one declared with property wrappers (through its bridges).
struct StaticRemoteAdd: Command {
    static let secret = Option<String>("-w", value: "SECRET", help: "The secret.").required()
    static let update = Flag("-U", help: "Update when it exists.")

    static let configuration = CommandConfiguration(
        name: "add", abstract: "Add a remote.",
        usage: ArgumentSection("", [secret, update]).synopsis + " [GLOBAL OPTIONS]")
    static let sections = [
        ArgumentSection("Options", [secret, update]),
        ArgumentSection("Global options", StaticSharedOptions.declarations),
        HomeArguments.section("Home options"),
    ]

    let secret: String
    let update: Bool
    let shared: StaticSharedOptions
    let home: HomeArguments

    init(from values: ParsedValues) throws(UsageError) {
        secret = try values.value(Self.secret) ?? ""  // required: the parser refuses a command line without it
        update = values.isSet(Self.update)
        shared = try StaticSharedOptions(from: values)
        home = try HomeArguments(from: values)
    }
}
