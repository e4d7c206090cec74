@testable import CommandLineKit
import Testing

/// Subcommands, help everywhere, the version, default subcommands, and running through the program.
@Suite struct DispatchTests {
    @Test func helpWinsWhereverItStandsBeforeAMistakeIsReached() throws {
        #expect(try Parse.output(["--help"])?.hasPrefix("usage: tool COMMAND [OPTIONS]") == true)
        #expect(try Parse.output(["-h"])?.hasPrefix("usage: tool ") == true)
        #expect(try Parse.output(["copy", "-h", "--bogus"])?.hasPrefix("usage: tool copy [OPTIONS] SOURCE [DEST]") == true)
        #expect(try Parse.output(["remote", "--store", "s", "--help"])?.hasPrefix("usage: tool remote [GLOBAL") == true)
        #expect(try Parse.output(["remote", "add", "--help"])?.hasPrefix("usage: tool remote add -w SECRET [-U]") == true)
        #expect(Parse.error(["copy", "--bogus", "-h"]) != nil)
    }

    @Test func aGroupWithoutAVerbShowsItsHelp() throws {
        #expect(try Parse.output(["remote"])?.hasPrefix("usage: tool remote ") == true)
        #expect(try Parse.output(["remote", "--store", "s"])?.hasPrefix("usage: tool remote ") == true)
        #expect(try Parse.output(["remote", "--"])?.hasPrefix("usage: tool remote ") == true)
        #expect(try Parse.output([])?.hasPrefix("usage: tool ") == true)
    }

    @Test func doubleDashBeforeAVerbStillNamesIt() throws {
        #expect(try Parse.command(RemoteAdd.self, ["remote", "--", "add", "-w", "x"]).secret == "x")
    }

    @Test func versionOnlyAtTheRoot() throws {
        #expect(try Parse.output(["--version"]) == "tool 1.2.3")
        #expect(Parse.error(["copy", "S", "--version"])?.problem == "unknown option --version")
    }

    @Test func hiddenCommandsRunButAreNotListed() throws {
        _ = try Parse.command(Hidden.self, ["hidden"])
        #expect(try Parse.output(["--help"])?.contains("hidden") == false)
    }

    @Test func aDefaultSubcommandRunsWhenNoneIsNamed() throws {
        let invocation = try CommandLineProgram(Defaulting.self).parse([])
        guard case .run(let command, let context) = invocation else {
            Issue.record("not run: \(invocation)")
            return
        }
        #expect(command is Hidden)
        #expect(context.commandPath == "defaulting hidden")
    }

    @Test func theProgramMapsOutcomesToStatusesAndStreams() async {
        let sink = OutputSink()
        let program = Parse.program
        #expect(await program.run(["copy", "S"], environment: [:], output: sink.output) == 0)
        #expect(await program.run(["copy", "missing"], environment: [:], output: sink.output) == 44)
        #expect(await program.run(["copy"], environment: [:], output: sink.output) == 2)
        #expect(await program.run(["--version"], environment: [:], output: sink.output) == 0)
        #expect(await CommandLineProgram(Tool.self, usageStatus: 64).run(["x"], environment: [:], output: sink.output) == 64)
        #expect(sink.errors == [
            "missing not found", "copy takes SOURCE [DEST]. See `tool copy --help`.",
            "unknown command 'x'. See `tool --help`.",
        ])
        #expect(sink.lines == ["tool 1.2.3"])
    }

    @Test func helpForANamedPathStopsAtTheFirstUnknownName() {
        #expect(Parse.program.help(for: ["remote", "add"]).hasPrefix("usage: tool remote add "))
        #expect(Parse.program.help(for: ["remote", "nope"]).hasPrefix("usage: tool remote [GLOBAL"))
        #expect(Parse.program.help(for: []).hasPrefix("usage: tool COMMAND"))
    }
}
