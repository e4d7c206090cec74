import CommandLineKit

/// The root of the property wrappers' test program: an untitled group among its own options, a leaf
/// with the wrappers ``Copy`` lacks, a leaf whose options all stand in a titled group, and a leaf that
/// embeds titled groups through an untitled one.
struct Probe: Command {
    static let configuration = CommandConfiguration(
        name: "probe", abstract: "Probes the property wrappers.", subcommands: [Check.self, Grouped.self, Nest.self])

    @OptionGroup var home: HomeArguments
}
