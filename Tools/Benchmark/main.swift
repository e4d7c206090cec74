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
        if let uri = options.postgres, let child = options.writerChild, let schema = options.schema {
            try PostgreSQLBenchmark.writerChild(child, uri: uri, schema: schema, options: options)
        } else if let uri = options.postgres, options.refreshProtocol {
            try await RefreshProtocolBenchmark.run(uri: uri, rounds: options.quick ? 100 : 1000)
        } else if options.accounts, let uri = options.postgres {
            try await PostgreSQLAccountsBenchmark.run(uri: uri, options: options)
        } else if options.accounts {
            try await AccountsBenchmark.run(options)
        } else if let uri = options.postgres {
            try PostgreSQLBenchmark.run(uri: uri, options: options)
        } else {
            try Benchmark.run(options)
        }
    } catch {
        Report.error("\(error)")
        exit(1)
    }
} catch {
    Report.error("\(error)")
    exit(2)
}
