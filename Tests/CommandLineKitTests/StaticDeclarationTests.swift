import CommandLineKit
import Testing

/// The static declarations (the API before property wrappers) work as they did, and mix with groups
/// declared with property wrappers, until the last command moves to property wrappers.
@Suite struct StaticDeclarationTests {
    static let program = CommandLineProgram(StaticTool.self)

    @Test func staticAndWrapperDeclarationsGiveTheSameHelp() throws {
        let staticHelp = try #require(try Parse.output(["copy", "--help"], program: Self.program))
        let wrapperHelp = try #require(try Parse.output(["copy", "--help"]))
        #expect(staticHelp.hasPrefix("usage: static copy [OPTIONS] SOURCE [DEST]\n"))
        #expect(staticHelp.split(separator: "\n").dropFirst() == wrapperHelp.split(separator: "\n").dropFirst())
    }

    @Test func staticAndWrapperDeclarationsDecodeTheSame() throws {
        let arguments = ["copy", "-v", "--count", "3", "-t", "a", "SRC", "-t", "b", "--name=n", "DST"]
        let copy = try Parse.command(StaticCopy.self, arguments, program: Self.program)
        let twin = try Parse.command(Copy.self, arguments)
        #expect(copy.verbose == twin.verbose && copy.count == twin.count && copy.tags == twin.tags)
        #expect(copy.name == twin.name && copy.source == twin.source && copy.destination == twin.destination)
        #expect(copy.count == 3 && copy.tags == ["a", "b"])
        #expect(
            Parse.error(["copy", "S", "--count", "0"], program: Self.program)?.message
                == "--count takes a number from 1 to 10. See `static copy --help`.")
    }

    @Test func aStaticCommandEmbedsAWrapperGroupThroughItsBridges() throws {
        let help = try #require(try Parse.output(["remote", "add", "--help"], program: Self.program))
        #expect(
            help.contains("Home options:\n  --home DIR  Where the tool lives.\n  --quiet     Say less.\n\nHome footer.")
        )
        let add = try Parse.command(
            StaticRemoteAdd.self, ["remote", "--store", "s", "add", "-w", "x", "--home", "h", "--quiet"],
            program: Self.program)
        #expect(add.secret == "x" && add.shared.store == "s" && add.home.home == "h" && add.home.quiet)
        #expect(try Parse.command(StaticRemoteAdd.self, ["remote", "add", "-w"], program: Self.program).secret == nil)
        #expect(
            Parse.error(["remote", "add", "-w", "x", "--home", ""], program: Self.program)?.problem
                == "--home needs a non-empty value")
        #expect(HomeArguments.declarations.map(\.declaration.synopsis) == ["--home DIR", "--quiet"])
    }
}
