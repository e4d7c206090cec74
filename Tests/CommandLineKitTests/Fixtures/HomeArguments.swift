import CommandLineKit

/// A group with a footer: embedded untitled by ``Probe``, titled by ``Grouped``, and through the bridges
/// the app's unconverted commands use by ``StaticRemoteAdd``.
struct HomeArguments: ParsableArguments {
    static let sectionFooter: String? = "Home footer."

    @Option("--home", value: "DIR", help: "Where the tool lives.", allowsEmpty: false) var home: String?
    @Flag("--quiet", help: "Say less.") var quiet: Bool
}
