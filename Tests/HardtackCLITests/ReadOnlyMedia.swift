import Foundation
import Testing

/// Runs `hardtack` with one directory read-only even to root (tests run as root in CI, and root ignores
/// permission bits): inside a private mount namespace with a read-only bind mount over it
/// (`unshare -m` + `mount --bind -o ro`), else with the directory made immutable (`chattr +i`).
enum ReadOnlyMedia {
    /// How a directory is made read-only here, or `nil` when neither way works on this machine.
    enum Method: Sendable { case bindMount, immutableDirectory }

    /// The method that works here, probed once on a scratch directory.
    static let method: Method? = probe()

    /// Whether a read-only directory can be made here; the tests that need one are skipped otherwise.
    static var isAvailable: Bool { method != nil }

    /// Runs `hardtack ARGUMENTS` (and `input` on standard input) with `directory` read-only.
    static func run(
        _ sandbox: CLISandbox, readOnly directory: String, _ arguments: [String], input: String? = nil
    ) async throws -> CLIResult {
        let executable = try #require(HardtackExecutable.path)
        switch try #require(method) {
        case .bindMount:
            let script = #"mount --bind -o ro "$1" "$1" || exit 99; shift; exec "$@""#
            return try await sandbox.runProcess(
                "/usr/bin/unshare", ["-m", "/bin/sh", "-c", script, "sh", directory, executable] + arguments,
                input: input)
        case .immutableDirectory:
            #expect(shell(["chattr", "+i", directory]) == 0)
            defer { _ = shell(["chattr", "-i", directory]) }
            return try await sandbox.runProcess(executable, arguments, input: input)
        }
    }

    /// Runs a shell script (`$1` is `directory`) in a private mount namespace: for a small full file system.
    static func inNamespace(_ sandbox: CLISandbox, _ script: String, _ arguments: [String]) async throws -> CLIResult {
        try await sandbox.runProcess("/usr/bin/unshare", ["-m", "/bin/sh", "-c", script, "sh"] + arguments)
    }

    private static func probe() -> Method? {
        let directory = NSTemporaryDirectory() + "hardtack-ro-probe-\(UUID().uuidString)"
        guard mkdir(directory, 0o700) == 0 else { return nil }
        defer { rmdir(directory) }
        let touch = #"mount --bind -o ro "$1" "$1" || exit 99; touch "$1/x" 2>/dev/null && exit 1; exit 0"#
        if shell(["/usr/bin/unshare", "-m", "/bin/sh", "-c", touch, "sh", directory]) == 0 { return .bindMount }
        guard shell(["chattr", "+i", directory]) == 0 else { return nil }
        defer { _ = shell(["chattr", "-i", directory]) }
        let created = FileManager.default.createFile(atPath: directory + "/x", contents: nil)
        if created { unlink(directory + "/x") }
        return created ? nil : .immutableDirectory
    }

    private static func shell(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
