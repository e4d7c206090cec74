/// Dispatches `hardtack-torture worker NAME …` to the worker of that name.
enum Workers {
    /// Runs the worker the first argument names; returns its exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        let rest = Array(arguments.dropFirst())
        switch arguments.first {
        case "flips": return FlipWorker.run(rest)
        case "salvage": return SalvageWorker.run(rest)
        case "crash-writer": return CrashWriterWorker.run(rest)
        case "contender": return ContentionWorker.run(rest)
        case "dto-fuzz": return await DTOFuzzWorker.run(rest)
        case "store-fuzz": return StoreFileFuzzWorker.run(rest)
        case "pg-writer": return PGCrashWriterWorker.run(rest)
        case "pg-contender": return PGContentionWorker.run(rest)
        default:
            emit("unknown worker \(arguments.first ?? "(none)")")
            return 2
        }
    }
}
