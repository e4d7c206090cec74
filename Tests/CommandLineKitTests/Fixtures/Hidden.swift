import CommandLineKit

/// A command the root's help leaves out.
struct Hidden: Command {
    static let configuration = CommandConfiguration(name: "hidden", abstract: "Not listed.", isHidden: true)
}
