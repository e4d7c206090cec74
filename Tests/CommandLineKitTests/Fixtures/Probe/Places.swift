import CommandLineKit

/// Two titled groups in one, which ``Nest`` embeds untitled.
struct Places: ParsableArguments {
    @OptionGroup(title: "Home options") var home: HomeArguments
    @OptionGroup(title: "Global options") var shared: SharedOptions
}
