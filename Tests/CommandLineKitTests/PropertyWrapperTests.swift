import CommandLineKit
import Foundation
import Testing

/// Arguments declared once, with property wrappers: the property's type says how many values an option
/// takes, help comes from the property order, groups and tables declare many at once, and `validate()`
/// checks what spans arguments.
@Suite struct PropertyWrapperTests {
    static let probe = CommandLineProgram(Probe.self)

    private func check(_ arguments: [String]) throws -> Check {
        try Parse.command(Check.self, ["check"] + arguments, program: Self.probe)
    }

    private func problem(_ arguments: [String]) -> String? {
        Parse.error(["check"] + arguments, program: Self.probe)?.message
    }

    @Test func aNonOptionalPropertyMakesItsOptionRequired() throws {
        #expect(Check().$target.isRequired)
        #expect(!Copy().$name.isRequired)
        #expect(problem(["-H", "h", "-w", "x"]) == "--to FILE is required. See `probe check --help`.")
        #expect(try check(["-H", "h", "-w", "x", "--to", "f"]).target == "f")
        #expect(
            problem(["-H", "h", "-w", "x", "--to", ""]) == "--to needs a non-empty value. See `probe check --help`.")
    }

    @Test func anOmittableValueIsGivenOrLeftOutAtTheEnd() throws {
        #expect(try check(["--to", "f", "-H", "h", "-w", "x"]).secret == .given("x"))
        #expect(try check(["--to", "f", "-H", "h", "-w", "-"]).secret == .given("-"))
        #expect(try check(["--to", "f", "-H", "h", "-w"]).secret == .omitted)
        #expect(problem(["--to", "f", "-H", "h"]) == "-w SECRET is required. See `probe check --help`.")
        #expect(problem(["--to", "f", "-w", "-H", "h"]) == "-H HOST is required. See `probe check --help`.")
        #expect(Check().$secret.mayOmitValueAtEnd && Check().$secret.isRequired)
    }

    @Test func anOptionTableHoldsTheOptionsGivenByKey() throws {
        #expect(try check(["--to", "f", "-w", "x", "-H", "h", "-P", "80"]).table == ["host": "h", "port": "80"])
        #expect(try check(["--to", "f", "-w", "x", "-H", "h"]).table == ["host": "h"])
        #expect(problem(["--to", "f", "-w", "x"]) == "-H HOST is required. See `probe check --help`.")
        let bad = problem(["--to", "f", "-w", "x", "-H", "h", "-P", "hunter2"])
        #expect(bad == "the port (-P) must be a number. See `probe check --help`.")
    }

    @Test func validateRunsOnceEveryArgumentIsDecodedAndTheParserNamesTheCommand() throws {
        #expect(
            problem(["--to", "f", "-w", "x", "-H", "h", "--json", "--text"])
                == "give --json or --text, not both. See `probe check --help`.")
        #expect(try check(["--to", "f", "-w", "x", "-H", "h", "--json"]).json)
    }

    @Test func aRepeatedPositionalTakesEveryArgumentLeftAndMayTakeNone() throws {
        #expect(try check(["a", "--to", "f", "-w", "x", "-H", "h", "b", "--", "-c"]).files == ["a", "b", "-c"])
        #expect(try check(["--to", "f", "-w", "x", "-H", "h"]).files.isEmpty)
    }

    @Test func helpListsTheArgumentsInPropertyOrder() throws {
        let help = try #require(try Parse.output(["check", "--help"], program: Self.probe))
        #expect(
            help == """
                usage: probe check [OPTIONS] [FILE...]

                Check things.

                Options:
                  -H HOST    The host.
                  -P PORT    The port.
                  --to FILE  Where to.
                  -w SECRET  The secret; last with no value, a prompt.
                  --json     Print JSON.
                  --text     Print text.
                  --help     Show this help and exit (also -h).

                Arguments:
                  FILE      Files to check.
                """)
    }

    @Test func aLeafWhoseOptionsAllStandInTitledGroupsListsHelpUnderOptions() throws {
        let help = try #require(try Parse.output(["grouped", "--help"], program: Self.probe))
        #expect(
            help == """
                usage: probe grouped [OPTIONS] [NAME]

                Options in a group.

                Options:
                  --help    Show this help and exit (also -h).

                Arguments:
                  NAME      A name.

                Home options:
                  --home DIR  Where the tool lives.
                  --quiet     Say less.

                Home footer.
                """)
    }

    @Test func anUntitledGroupStandsAmongTheCommandsOwnOptions() throws {
        let help = try #require(try Parse.output(["--help"], program: Self.probe))
        #expect(help.contains("Options:\n  --home DIR  Where the tool lives.\n  --quiet     Say less.\n  --help "))
        #expect(!help.contains("Home footer."))
        // Given before the subcommand, the group's options are read where every command can see them.
        let (command, context) = try Parse.run(
            Grouped.self, ["--home", "h", "grouped", "--quiet", "n"], program: Self.probe)
        #expect(try HomeArguments(from: context.values).home == "h")
        #expect(command.home.home == "h" && command.home.quiet && command.name == "n")
    }

    @Test func titledGroupsInAnUntitledGroupKeepTheirSectionsWhereItStands() throws {
        let help = try #require(try Parse.output(["nest", "--help"], program: Self.probe))
        #expect(
            help == """
                usage: probe nest [OPTIONS]

                Groups in a group.

                Options:
                  --all     Every one.
                  --help    Show this help and exit (also -h).

                Home options:
                  --home DIR  Where the tool lives.
                  --quiet     Say less.

                Home footer.

                Global options:
                  --store PATH  The store.
                  --group G     A group; repeat for more.

                Shared footer.
                """)
        let nest = try Parse.command(
            Nest.self, ["nest", "--group", "a", "--home", "h", "--group", "b"], program: Self.probe)
        #expect(!nest.all && nest.places.home.home == "h" && nest.places.shared.groups == ["a", "b"])
        #expect(
            Parse.error(["nest", "--all", "--home", "h"], program: Self.probe)?.message
                == "give --all or --home, not both. See `probe nest --help`.")
        #expect(try Parse.command(Nest.self, ["nest", "--all", "--quiet"], program: Self.probe).all)
    }

    @Test func projectedValuesAreTheDeclarations() {
        let copy = Copy()
        #expect(copy.$count.synopsis == "--count N")
        #expect(copy.$tags.isRepeatable && copy.$tags.kind == .option)
        #expect(copy.$verbose.names == ["--verbose", "-v"])
        #expect(copy.$source.synopsis == "SOURCE" && copy.$source.isRequired)
        #expect(!copy.$destination.isRequired)
    }

    @Test func theUsageSynopsisListsOwnArgumentsRequiredFirst() {
        #expect(RemoteAdd.usageSynopsis == "-w SECRET [-U]")
        #expect(Check.usageSynopsis == "-H HOST --to FILE -w SECRET [-P PORT] [--json] [--text] [FILE...]")
        #expect(Remote.usageSynopsis == "")
    }

    @Test func completionOffersTableAndGroupOptions() {
        let script = CompletionScript.bash(Probe.self)
        #expect(script.contains("words='-H -P --to -w --json --text --help'"))
        #expect(script.contains("values='-H -P --to -w' ;;"))
        #expect(script.contains("words='check grouped nest --home --quiet --help'"))
    }

    @Test func wrappersDecodeOnlyFromACommandLine() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HomeArguments.self, from: Data("{}".utf8)) }
    }
}
