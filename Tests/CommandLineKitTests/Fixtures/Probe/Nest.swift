import CommandLineKit

/// A leaf that embeds, untitled, a group of titled groups (as the app's commands embed their account,
/// server and store options), with a rule across its own flag and an option of a nested group.
struct Nest: Command {
    static let configuration = CommandConfiguration(name: "nest", abstract: "Groups in a group.")

    @Flag("--all", help: "Every one.") var all: Bool
    @OptionGroup var places: Places

    func validate() throws(UsageError) {
        if all && places.home.home != nil { throw UsageError("give --all or --home, not both") }
    }
}
