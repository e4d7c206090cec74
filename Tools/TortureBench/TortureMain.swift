#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `hardtack-torture`: the reliability and security bench (run it through `Tools/torture`).
///
/// The same executable is the parent (no subcommand), the process of one scenario (`scenario NAME`)
/// and the scenarios' child processes (`worker NAME`), so that every process it starts is this build.
@main
enum TortureMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        signal(SIGPIPE, SIG_IGN)
        switch arguments.first {
        case "worker":
            exit(await Workers.run(Array(arguments.dropFirst())))
        case "scenario":
            exit(ScenarioProcess.run(Array(arguments.dropFirst())))
        default:
            guard let options = BenchOptions.parse(arguments) else { exit(2) }
            exit(Bench(options: options).run())
        }
    }
}
