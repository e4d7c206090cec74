import CommandLineKit

/// Options the group and its verb share, accepted before or after the verb's name.
struct SharedOptions: ParsableArguments {
    static let sectionFooter: String? = "Shared footer."

    @Option("--store", value: "PATH", help: "The store.", allowsEmpty: false) var store: String?
    @Option("--group", value: "G", help: "A group; repeat for more.") var groups: [String]
}
