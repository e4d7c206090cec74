import CommandLineKit
import Testing

/// One table gives both help's paragraph and the documentation's Markdown table.
@Suite struct ExitStatusTableTests {
    @Test func aSubsetKeepsTheOrderAsked() {
        #expect(Tool.statuses.only([44, 0]).rows.map(\.status) == [44, 0])
    }

    @Test func helpParagraph() {
        #expect(
            Tool.statuses.only([0, 44]).helpParagraph
                == "Exit status: 0 success, 44 not found. Errors go to standard error, one line each.")
    }

    @Test func markdown() {
        #expect(
            Tool.statuses.only([0, 2]).markdown == """
                | status | meaning |
                |---|---|
                | 0 | success |
                | 2 | usage error |
                """)
    }
}
