import Foundation

/// The bench's command line: `hardtack-torture [--quick|--long] [--seed N] [--only NAMES] [--keep]`.
struct BenchOptions {
    /// Quick (CI) or long (release).
    var mode = BenchMode.quick
    /// The master seed; every scenario derives its own from it and its name.
    var seed: UInt64 = UInt64.random(in: 1...999_999_999)
    /// Scenario names or numbers to run; empty for all.
    var only: [String] = []
    /// Keep the scratch directory even when everything passed.
    var keep = false
    /// The `hardtack` executable (default: the one of the same build configuration in the package).
    var hardtack: String?
    /// The package directory, for the sanitizer runs (default: the current directory).
    var package = FileManager.default.currentDirectoryPath

    /// The usage text.
    static let usage = """
        usage: hardtack-torture [--quick | --long] [--seed N] [--only SCENARIO[,SCENARIO…]] [--keep] [--list]
          --quick        the CI mode (the default): every scenario, a few minutes in all
          --long         the release mode: the counts docs/performance.md quotes
          --seed N       replay a run: every random choice derives from N (printed at the start)
          --only S       run only these scenarios, by number or name (see --list)
          --keep         keep the scratch directory even when every scenario passes
          --list         list the scenarios and exit
        """

    /// Parses the arguments after the program name.
    /// - Returns: `nil` and prints why when they are wrong.
    static func parse(_ arguments: [String]) -> BenchOptions? {
        var options = BenchOptions()
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--quick": options.mode = .quick
            case "--long": options.mode = .long
            case "--keep": options.keep = true
            case "--seed":
                guard let text = value(), let seed = UInt64(text) else {
                    print("--seed takes a whole number\n\(usage)")
                    return nil
                }
                options.seed = seed
            case "--only":
                guard let text = value() else {
                    print("--only takes scenario names or numbers\n\(usage)")
                    return nil
                }
                options.only += text.split(separator: ",").map { String($0) }
            case "--hardtack":
                guard let text = value() else { return nil }
                options.hardtack = text
            case "--package":
                guard let text = value() else { return nil }
                options.package = text
            case "--list":
                for scenario in ScenarioCatalog.all {
                    print("\(scenario.number)\t\(scenario.name)\t\(scenario.title)")
                }
                return nil
            case "--help", "-h":
                print(usage)
                return nil
            default:
                print("unknown argument '\(arguments[index])'\n\(usage)")
                return nil
            }
            index += 1
        }
        return options
    }
}
