import Foundation

/// Runs a program to completion (or to its deadline), its output captured through files so that a
/// chatty child can never block on a full pipe.
struct CommandRunner {
    /// What a run produced.
    struct Result {
        /// How it ended; `nil` when it had to be killed at the deadline (a hang).
        let termination: ChildProcess.Termination?
        /// Everything it wrote to standard output.
        let stdout: [UInt8]
        /// Everything it wrote to standard error.
        let stderr: [UInt8]
        /// Seconds from start to end.
        let seconds: Double

        /// The exit status, or `nil` for a signal or a hang.
        var status: Int32? {
            if case .exited(let code)? = termination { code } else { nil }
        }

        /// Standard output as text.
        var out: String { String(decoding: stdout, as: UTF8.self) }
        /// Standard error as text.
        var err: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// Where the capture files go.
    let scratch: String
    /// The environment every run gets, before its own additions.
    var environment: [String: String]
    private static let counter = Counter()

    /// Runs `executable` with `arguments`, `input` on standard input, for at most `timeout` seconds.
    func run(
        _ executable: String, _ arguments: [[UInt8]], input: [UInt8]? = nil, environment extra: [String: String] = [:],
        timeout: Double = 60
    ) -> Result {
        let id = Self.counter.next()
        let outPath = scratch + "/run-\(id).out"
        let errPath = scratch + "/run-\(id).err"
        let inPath = scratch + "/run-\(id).in"
        var stdin = ChildProcess.Stream.null
        if let input {
            writeFile(inPath, input)
            stdin = .file(inPath)
        }
        defer {
            for path in [outPath, errPath, inPath] { unlink(path) }
        }
        let started = Date()
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                executable, arguments, environment: environment.merging(extra) { $1 }, stdin: stdin,
                stdout: .file(outPath), stderr: .file(errPath))
        } catch {
            return Result(termination: .exited(-1), stdout: [], stderr: Array("\(error)".utf8), seconds: 0)
        }
        var termination = child.wait(timeout: timeout)
        if termination == nil {
            child.killAndReap()
            termination = nil
        }
        return Result(
            termination: termination, stdout: readFile(outPath), stderr: readFile(errPath),
            seconds: Date().timeIntervalSince(started))
    }

    /// ``run(_:_:input:environment:timeout:)`` with string arguments and input.
    func run(
        _ executable: String, _ arguments: [String], input: String? = nil, environment extra: [String: String] = [:],
        timeout: Double = 60
    ) -> Result {
        run(
            executable, arguments.map { Array($0.utf8) }, input: input.map { Array($0.utf8) }, environment: extra,
            timeout: timeout)
    }
}
