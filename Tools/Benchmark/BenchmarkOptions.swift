/// The command line of `hardtack-bench`.
struct BenchmarkOptions {
    /// A command line that cannot be understood.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Items in the workload.
    var count = 10_000
    /// Runs of the side-by-side workload per sync mode; each figure is the median over runs.
    var runs = 3
    /// Whether to measure get latency at 100,000 and 1,000,000 items too.
    var sizes = false
    /// A small, fast smoke run.
    var quick = false
    /// The seed of every random choice.
    var seed: UInt64?
    /// The `hardtack` executable for the status figure.
    var hardtack: String?
    /// Where the temporary stores go.
    var directory: String?
    /// Only the put/get/update/delete workload (for profiling).
    var workloadOnly = false
    /// Only this implementation's workload (`hardtack` or `direct`), for profiling one of them.
    var implementation: String?
    /// `--help`: print the usage and do nothing else.
    var help = false
    /// `--postgres URI`: benchmark the store on this PostgreSQL server instead of SQLite.
    var postgres: String?
    /// `--writers N`: with `--postgres`, also the throughput of N writer processes sharing one store.
    var writers = 8
    /// The writer-process mode `--postgres` starts itself in: `hardtack` or `direct` (internal).
    var writerChild: String?
    /// The schema a writer process works in (internal).
    var schema: String?
    /// Which writer process this is (internal), for accounts of its own.
    var writerIndex = 0
    /// `--accounts`: only `hardtack accounts` over 10,000 accounts and `status` of one among them.
    var accounts = false
    /// `--refresh-protocol`: with `--postgres`, only the refresh protocol's figures.
    var refreshProtocol = false

    static let usage = """
        usage: hardtack-bench [--n N] [--runs R] [--sizes] [--quick] [--seed S] [--hardtack PATH] [--dir DIR]
                              [--workload-only] [--impl hardtack|direct]

          --n N            items in the workload (default 10000)
          --runs R         runs of the side-by-side workload per sync mode; figures are medians (default 3, 1 with --quick)
          --sizes          also time gets at 100,000 and 1,000,000 items (about a minute more)
          --quick          a fast smoke run (n 1000, one run, fewer repeats)
          --seed S         the seed of every random choice (default: random, printed)
          --hardtack PATH  the hardtack executable for the status figure (default: beside this one)
          --dir DIR        where temporary stores go (default: $TMPDIR or /tmp)
          --workload-only  only the put/get/update/delete workload, for profiling
          --impl NAME      only `hardtack` or only `direct` in the workload, for profiling
          --postgres URI   the store on this PostgreSQL server against direct libpq, then writer processes
          --writers N      with --postgres: writer processes sharing one store (default 8; 0 for none)
          --refresh-protocol  with --postgres: only claim + mark + complete p50 and a waiter's wake-up p99
          --accounts       only `hardtack accounts` over 10,000 accounts and `status` of one among them (with --postgres: there)
        """

    /// Parses the arguments (without the program name).
    static func parse(_ arguments: [String]) throws -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var explicitCount: Int?
        var explicitRuns: Int?
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError(description: "\(name) needs a value") }
            return next
        }
        func number(_ name: String) throws -> Int {
            guard let parsed = Int(try value(name)), parsed > 0 else {
                throw UsageError(description: "\(name) needs a positive whole number")
            }
            return parsed
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--n": explicitCount = try number(argument)
            case "--runs": explicitRuns = try number(argument)
            case "--sizes": options.sizes = true
            case "--quick": options.quick = true
            case "--workload-only": options.workloadOnly = true
            case "--seed":
                guard let seed = UInt64(try value(argument)) else { throw UsageError(description: "--seed needs a number") }
                options.seed = seed
            case "--hardtack": options.hardtack = try value(argument)
            case "--dir": options.directory = try value(argument)
            case "--impl":
                let name = try value(argument)
                guard name == "hardtack" || name == "direct" else {
                    throw UsageError(description: "--impl is hardtack or direct")
                }
                options.implementation = name
            case "--help", "-h": options.help = true
            case "--postgres": options.postgres = try value(argument)
            case "--refresh-protocol": options.refreshProtocol = true
            case "--accounts": options.accounts = true
            case "--writers":
                guard let writers = Int(try value(argument)), writers >= 0 else {
                    throw UsageError(description: "--writers needs a whole number")
                }
                options.writers = writers
            case "--writer-child": options.writerChild = try value(argument)
            case "--schema": options.schema = try value(argument)
            case "--writer-index":
                guard let index = Int(try value(argument)), index >= 0 else {
                    throw UsageError(description: "--writer-index needs a whole number")
                }
                options.writerIndex = index
            default: throw UsageError(description: "unknown option \(argument)\n\(usage)")
            }
        }
        options.count = explicitCount ?? (options.quick ? 1000 : 10_000)
        options.runs = explicitRuns ?? (options.quick ? 1 : 3)
        return options
    }
}
