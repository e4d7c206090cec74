#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Everything happens in `Benchmark.run`; usage errors exit 2, failed runs 1.
do {
    let options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
    if options.help {
        Report.line(BenchmarkOptions.usage)
        exit(0)
    }
    do {
        try Benchmark.run(options)
    } catch {
        Report.error("\(error)")
        exit(1)
    }
} catch {
    Report.error("\(error)")
    exit(2)
}
