import CommandLineKit
import Testing

/// The static declarations (the API before property wrappers) work as they did, and mix with groups
/// declared with property wrappers, until the last command moves to property wrappers.
@Suite struct StaticDeclarationTests {
    static let program = CommandLineProgram(StaticTool.self)

    @Test func aStaticLeafHasTheHelpItDeclares() throws {
        let help = try #require(try Parse.output(["copy", "--help"], program: Self.program))
        #expect(
            help == """
                usage: static copy [OPTIONS] SOURCE

                Copy a thing.

                Options:
                  --verbose         Say more.
                  --count N         How many copies.
                  --name NAME       A name.
                  --level high|low  How hard.
                  --help            Show this help and exit (also -h).

                Arguments:
                  SOURCE    Where from.
                """)
    }

    @Test func aStaticLeafDecodesEveryKind() throws {
        let copy = try Parse.command(
            StaticCopy.self, ["copy", "-v", "--count", "3", "SRC", "--name=n", "--level", "low"], program: Self.program)
        #expect(copy.verbose && copy.count == 3 && copy.name == "n" && copy.isHigh == false && copy.source == "SRC")
        let bare = try Parse.command(StaticCopy.self, ["copy", "SRC"], program: Self.program)
        #expect(!bare.verbose && bare.count == nil && bare.name == nil && bare.isHigh == nil)
        #expect(
            Parse.error(["copy", "S", "--count", "0"], program: Self.program)?.message
                == "--count takes a number from 1 to 10. See `static copy --help`.")
        #expect(
            Parse.error(["copy", "S", "--level", "mid"], program: Self.program)?.problem
                == "--level must be high or low")
        #expect(Parse.error(["copy"], program: Self.program)?.problem == "copy takes SOURCE")
    }

    @Test func aStaticCommandEmbedsAWrapperGroupThroughItsBridges() throws {
        let help = try #require(try Parse.output(["remote", "add", "--help"], program: Self.program))
        #expect(help.hasPrefix("usage: static remote add -w SECRET [-U] [GLOBAL OPTIONS]\n"))
        #expect(
            help.contains("Home options:\n  --home DIR  Where the tool lives.\n  --quiet     Say less.\n\nHome footer.")
        )
        let add = try Parse.command(
            StaticRemoteAdd.self, ["remote", "--store", "s", "add", "-w", "x", "--home", "h", "--quiet"],
            program: Self.program)
        #expect(add.secret == "x" && add.shared.store == "s" && add.home.home == "h" && add.home.quiet)
        #expect(Parse.error(["remote", "add"], program: Self.program)?.problem == "-w SECRET is required")
        #expect(
            Parse.error(["remote", "add", "-w", "x", "--home", ""], program: Self.program)?.problem
                == "--home needs a non-empty value")
        #expect(HomeArguments.declarations.map(\.declaration.synopsis) == ["--home DIR", "--quiet"])
    }
}
