/// The `--name value` arguments of a worker, with the trial range every trial worker takes.
struct TrialArguments {
    private var values: [String: String] = [:]

    /// Parses `--name value` pairs.
    init(_ arguments: [String]) {
        var index = 0
        while index + 1 < arguments.count {
            values[arguments[index]] = arguments[index + 1]
            index += 2
        }
    }

    /// The text value of `--name`.
    subscript(name: String) -> String? { values["--" + name] }

    /// The integer value of `--name`, or `fallback`.
    func int(_ name: String, _ fallback: Int = 0) -> Int { self[name].flatMap { Int($0) } ?? fallback }

    /// The seed (`--seed`).
    var seed: UInt64 { self["seed"].flatMap { UInt64($0) } ?? 1 }

    /// The trials to run (`--from`, `--to`).
    var range: Range<Int> {
        let from = int("from")
        return from..<max(from, int("to"))
    }
}
