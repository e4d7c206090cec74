import Data

/// The progress lines `export` and `import` print on stderr: one per tenth of the items, for at least
/// ``minimumItems`` items (a smaller store is done before a line would help), each step counted apart.
struct ProgressLines {
    /// The fewest items that get progress lines.
    static let minimumItems = 100

    /// The verb named at the start of each line.
    let verb: String
    private var tenths: [ExportStep: Int] = [:]

    /// Lines for `verb`.
    init(verb: String) {
        self.verb = verb
    }

    /// Prints a line when `done` of `total` items of `step` crossed into a new tenth.
    mutating func report(_ step: ExportStep, _ done: Int, _ total: Int) {
        guard total >= Self.minimumItems, done > 0 else { return }
        let tenth = min(10, done * 10 / total)
        guard tenth > tenths[step, default: 0] else { return }
        tenths[step] = tenth
        let what =
            switch step {
            case .read: "read and decrypted"
            case .written: "written to the file"
            case .imported: "imported"
            }
        Console.error("\(verb): \(done) of \(total) items \(what) (\(tenth * 10)%)")
    }
}
