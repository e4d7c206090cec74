import Foundation
import TestSupport
import Testing

/// One test's private world for running `hardtack`: a temporary directory that holds the store, a
/// fake home, and the files a run reads or writes; the environment has no inherited `HARDTACK_*`.
struct CLISandbox {
    /// The temporary directory, removed when the sandbox goes.
    let directory = TemporaryDirectory()

    /// The store the tests use unless they name another: in a directory that does not exist yet.
    var store: String { directory.file("store/keychain.db") }

    /// The default key file of ``store``.
    var keyFile: String { store + ".key" }

    /// Runs `hardtack ARGUMENTS` with `input` on standard input and `environment` added.
    func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) async throws -> CLIResult {
        let executable = try #require(HardtackExecutable.path, "the hardtack executable was not built")
        return try await runProcess(executable, arguments, input: input, environment: environment)
    }

    /// Runs `hardtack keychain --store STORE ARGUMENTS`.
    func keychain(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) async throws
        -> CLIResult
    {
        try await run(["keychain", "--store", store] + arguments, input: input, environment: environment)
    }

    /// Runs any program the same way (for `/bin/sh` wrappers around hardtack).
    func runProcess(
        _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
    ) async throws -> CLIResult {
        try await launch(executable, arguments, input: input, environment: environment).wait()
    }

    /// Starts a program without waiting for it.
    func launch(
        _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
    ) throws -> RunningProcess {
        let id = UUID().uuidString
        let outPath = directory.file("out-\(id)")
        let errPath = directory.file("err-\(id)")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = baseEnvironment.merging(environment) { $1 }
        // Output goes to files, not pipes, so a chatty child can never block on a full pipe.
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        if let input {
            let inPath = directory.file("in-\(id)")
            _ = FileManager.default.createFile(atPath: inPath, contents: Data(input.utf8))
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        return RunningProcess(process: process, outPath: outPath, errPath: errPath, started: Date())
    }

    /// What every run's environment starts from: a `PATH`, the sandbox's home, the C locale.
    var baseEnvironment: [String: String] {
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.file("home"),
            "LANG": "C",
        ]
        // Under `swift test --sanitize`, the executable is instrumented too: it reports where the test
        // process does, with the same suppressions.
        for name in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"] {
            environment[name] = ProcessInfo.processInfo.environment[name]
        }
        return environment
    }
}
