@testable import CommandLineKit
import Testing

/// Each kind of argument decodes into its typed value, wherever it stands on the line.
@Suite struct OptionParsingTests {
    @Test func everyKindDecodes() throws {
        let copy = try Parse.command(
            Copy.self, ["copy", "-v", "--count", "3", "-t", "a", "SRC", "-t", "b", "--name=n", "DST"])
        #expect(copy.verbose)
        #expect(copy.count == 3)
        #expect(copy.tags == ["a", "b"])
        #expect(copy.name == "n")
        #expect(copy.source == "SRC")
        #expect(copy.destination == "DST")
    }

    @Test func absentArgumentsDecodeAsAbsent() throws {
        let copy = try Parse.command(Copy.self, ["copy", "SRC"])
        #expect(!copy.verbose)
        #expect(copy.count == nil)
        #expect(copy.tags.isEmpty)
        #expect(copy.name == nil)
        #expect(copy.destination == nil)
    }

    /// A short option's value may be written on, as getopt and `security` take it: `-wSECRET`, `-tTAG`.
    @Test func aShortOptionsValueMayBeWrittenOn() throws {
        let add = try Parse.command(RemoteAdd.self, ["remote", "add", "-wSecret8"])
        #expect(add.secret == "Secret8")
        let copy = try Parse.command(Copy.self, ["copy", "-ta", "SRC", "-t", "b"])
        #expect(copy.tags == ["a", "b"])
        #expect(Parse.error(["copy", "-vx", "SRC"])?.problem == "unknown option -v (followed by text not shown)")
    }

    @Test func aFlagAnswersToItsAlias() throws {
        #expect(try Parse.command(Copy.self, ["copy", "SRC", "-v"]).verbose)
    }

    @Test func doubleDashEndsTheOptions() throws {
        let copy = try Parse.command(Copy.self, ["copy", "--", "-v", "--help"])
        #expect(!copy.verbose)
        #expect(copy.source == "-v")
        #expect(copy.destination == "--help")
    }

    @Test func aValueMayStartWithADash() throws {
        let add = try Parse.command(RemoteAdd.self, ["remote", "add", "-w", "-"])
        #expect(add.secret == "-")
        let dashed = try Parse.command(RemoteAdd.self, ["remote", "add", "-w", "--help"])
        #expect(dashed.secret == "--help")
        let lone = try Parse.command(Copy.self, ["copy", "-"])
        #expect(lone.source == "-")
    }

    @Test func inlineValuesKeepEverythingAfterTheFirstEquals() throws {
        #expect(try Parse.command(Copy.self, ["copy", "--name=a=b", "S"]).name == "a=b")
        #expect(try Parse.command(Copy.self, ["copy", "--name=x", "S"]).name == "x")
    }

    @Test func sharedOptionsCountBeforeAndAfterTheVerb() throws {
        let add = try Parse.command(
            RemoteAdd.self, ["remote", "--store", "s", "--group", "a", "add", "-U", "-w", "x", "--group", "b"])
        #expect(add.shared.store == "s")
        #expect(add.shared.groups == ["a", "b"])
        #expect(add.update)
        #expect(add.secret == "x")
        let after = try Parse.command(RemoteAdd.self, ["remote", "add", "-w", "x", "--store", "t"])
        #expect(after.shared.store == "t")
    }

    @Test func theContextNamesTheCommand() throws {
        let invocation = try Parse.program.parse(["remote", "add", "-w", "x"], environment: ["K": "V"])
        guard case .run(_, let context) = invocation else {
            Issue.record("not run: \(invocation)")
            return
        }
        #expect(context.commandPath == "tool remote add")
        #expect(context.environment == ["K": "V"])
        #expect(context.usageError("bad").message == "bad. See `tool remote add --help`.")
    }
}
