/// A program's exit statuses and what each means: one table, from which help lists the statuses a
/// command can end with and the documentation's table is generated.
public struct ExitStatusTable: Sendable, Equatable {
    /// One exit status.
    public struct Row: Sendable, Equatable {
        /// The status.
        public let status: Int32
        /// What it means, in a few words: `item not found`.
        public let meaning: String

        /// Creates a row.
        public init(status: Int32, meaning: String) {
            self.status = status
            self.meaning = meaning
        }
    }

    /// The statuses, in the order they are listed.
    public let rows: [Row]

    /// Creates a table.
    public init(_ rows: [Row]) {
        self.rows = rows
    }

    /// The rows for `statuses`, in that order (a status the table lacks is a programming error).
    public func only(_ statuses: [Int32]) -> ExitStatusTable {
        ExitStatusTable(
            statuses.map { status in
                guard let row = rows.first(where: { $0.status == status }) else {
                    preconditionFailure("exit status \(status) is not in the table")
                }
                return row
            })
    }

    /// The paragraph that ends a command's help: `Exit status: 0 success, 2 usage error, …`.
    public var helpParagraph: String {
        "Exit status: " + rows.map { "\($0.status) \($0.meaning)" }.joined(separator: ", ")
            + ". Errors go to standard error, one line each."
    }

    /// The table in Markdown, as the README shows it.
    public var markdown: String {
        (["| status | meaning |", "|---|---|"] + rows.map { "| \($0.status) | \($0.meaning) |" })
            .joined(separator: "\n")
    }
}
