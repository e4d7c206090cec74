@testable import CommandLineKit
import Testing

/// One layout for every command's help.
@Suite struct HelpRenderingTests {
    @Test func aLeafShowsUsageAbstractSectionsDiscussionAndExitStatuses() throws {
        let help = try #require(try Parse.output(["copy", "--help"]))
        #expect(
            help == """
                usage: tool copy [OPTIONS] SOURCE [DEST]

                Copy a thing.

                Options:
                  --verbose    Say more.
                  --count N    How many copies.
                  -t TAG       A tag; repeat for more.
                  --name NAME  A name.
                  --help       Show this help and exit (also -h).

                Arguments:
                  SOURCE    Where from.
                  DEST      Where to.

                Copies are cheap.

                Exit status: 0 success, 2 usage error, 1 anything else. Errors go to standard error, one line each.
                """)
    }

    @Test func aGroupListsItsVerbsAndSectionFooters() throws {
        let help = try #require(try Parse.output(["remote", "-h"]))
        #expect(help.hasPrefix("usage: tool remote [GLOBAL OPTIONS] VERB [OPTIONS]\n\nWork with remotes.\n\nVerbs:\n  add "))
        #expect(help.contains("Global options:\n  --store PATH"))
        #expect(help.contains("  --help        Show this help and exit (also -h).\n\nShared footer."))
        #expect(help.hasSuffix("Run `tool remote VERB --help` for a remote verb's options."))
    }

    @Test func theRootListsVisibleCommandsTheVersionFlagAndTheEnvironment() throws {
        let help = try #require(try Parse.output(["--help"]))
        #expect(help.contains("Commands:\n  copy"))
        #expect(help.contains("  remote "))
        #expect(!help.contains("hidden"))
        #expect(help.contains("  --version "))
        #expect(help.contains("Environment:\n  TOOL_HOME"))
        #expect(!help.contains("Exit status"))
        let leaf = try #require(try Parse.output(["copy", "--help"]))
        #expect(!leaf.contains("--version"))
    }

    @Test func aLongEntryWrapsUnderItsColumn() {
        let long = String(repeating: "word ", count: 40)
        let text = TextLayout.section("T", [("--an-option-name-longer-than-the-column", long), ("-s", "short")])
        let lines = text.split(separator: "\n")
        #expect(lines[1] == "  --an-option-name-longer-than-the-column")
        #expect(lines.dropFirst(2).allSatisfy { $0.count <= TextLayout.width })
        #expect(lines.contains { $0.hasPrefix("  -s") && $0.hasSuffix("short") })
    }
}
