import CommandLineKit

/// A group with a footer: embedded untitled by ``Probe`` and titled by ``Grouped``.
struct HomeArguments: ParsableArguments {
    static let sectionFooter: String? = "Home footer."

    @Option("--home", value: "DIR", help: "Where the tool lives.", allowsEmpty: false) var home: String?
    @Flag("--quiet", help: "Say less.") var quiet: Bool
}
