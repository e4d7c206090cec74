import Data

/// The progress lines `export`, `import` and `rotate-key` print on stderr: one per tenth of the items,
/// for at least ``minimumItems`` items (a smaller store is done before a line would help), each step
/// counted apart.
struct ProgressLines {
    /// The fewest items that get progress lines.
    static let minimumItems = 100

    /// The verb named at the start of each line.
    let verb: String
    private var tenths: [String: Int] = [:]

    /// Lines for `verb`.
    init(verb: String) {
        self.verb = verb
    }

    /// Prints a line when `done` of `total` items of `step` crossed into a new tenth.
    mutating func report(_ step: ExportStep, _ done: Int, _ total: Int) {
        let what =
            switch step {
            case .read: "read and decrypted"
            case .written: "written to the file"
            case .imported: "imported"
            }
        report(what, done, total)
    }

    /// Prints a line when `done` of `total` items re-sealed under a new master key crossed into a new tenth.
    mutating func reportResealed(_ done: Int, _ total: Int) {
        report("re-sealed under the new master key", done, total)
    }

    /// Prints a line when `done` of `total` items that are `what` crossed into a new tenth.
    private mutating func report(_ what: String, _ done: Int, _ total: Int) {
        guard total >= Self.minimumItems, done > 0 else { return }
        let tenth = min(10, done * 10 / total)
        guard tenth > tenths[what, default: 0] else { return }
        tenths[what] = tenth
        Console.error("\(verb): \(done) of \(total) items \(what) (\(tenth * 10)%)")
    }
}
