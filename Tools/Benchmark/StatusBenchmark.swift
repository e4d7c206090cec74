import BenchSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Data
import Domain
import Foundation
import SQLiteStore

/// The wall time of `hardtack status` as a separate process over a store holding a signed-in session:
/// from the spawn to the decision on its standard output, and to its exit.
enum StatusBenchmark {
    /// One run's figures.
    struct Figures {
        /// Milliseconds from spawn to the decision line.
        var decision: Double
        /// Milliseconds from spawn to exit.
        var exit: Double
        /// The process's peak resident memory (VmHWM) when it printed its decision, in KiB. Not
        /// `wait4`'s figure: Linux carries the spawning process's peak across `exec` into that one.
        var peakKiB: Int
        /// The process's exit status (0: signed in).
        var status: Int32
        /// Lines it printed on standard output.
        var lines = 0
    }

    /// A failure to set up or run the process.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes a signed-in session into a new key-file store in `directory`; returns the store's path.
    static func prepareStore(directory: String, generator: inout SeededGenerator) throws -> String {
        let path = directory + "/status/keychain.db"
        let store = try SQLiteSecureItemStore.open(at: path, keySource: .keyFile(path: path + ".key"))
        let now = Date()
        let session = Session(
            accessToken: try AccessToken(
                value: SecretBytes(Workload.secret(&generator)), issuedAt: now, expiresAt: now.addingTimeInterval(3600)),
            refreshToken: try RefreshToken(value: SecretBytes(Workload.secret(&generator))),
            user: User(id: "bench", name: "Bench"), method: .password)
        try waitFor { () async throws(AuthenticationError) in try await SecureStoreSessionRepository(store: store).replace(with: session) }
        try store.checkpoint()
        return path
    }

    /// Runs `hardtack status --store path` (or another `command`) once.
    /// `storeArguments` replace `--store path --key-file path.key` (a PostgreSQL URI and `--key-env`).
    static func run(
        executable: String, store: String, command: [String] = ["status"], storeArguments: [String]? = nil
    ) throws -> Figures {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw Failure(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [executable] + command + (storeArguments ?? ["--store", store, "--key-file", store + ".key"])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = ProcessInfo.processInfo.environment
        environment["HARDTACK_PASSPHRASE"] = nil
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }

        var pid: pid_t = 0
        let start = MonotonicClock.now()
        let spawned = posix_spawn(&pid, executable, &actions, nil, &argv, &envp)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { throw Failure(description: "cannot run \(executable)") }
        // The decision is the first line the command prints.
        var decisionAt = start
        var byte: UInt8 = 0
        while read(pipeEnds[0], &byte, 1) == 1 {
            if byte == 0x0A {
                decisionAt = MonotonicClock.now()
                break
            }
        }
        let peak = highWaterKiB(pid)
        var lines = decisionAt == start ? 0 : 1
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count <= 0 { break }
            lines += buffer[0..<count].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        var status: Int32 = 0
        guard waitpid(pid, &status, 0) == pid else { throw Failure(description: "waitpid failed") }
        let end = MonotonicClock.now()
        if decisionAt == start { decisionAt = end }
        return Figures(
            decision: Double(decisionAt - start) / 1e6, exit: Double(end - start) / 1e6, peakKiB: peak,
            status: (status >> 8) & 0xff, lines: lines)
    }

    /// The peak resident memory of a running process, from `/proc/PID/status`, in KiB (0 if unknown).
    static func highWaterKiB(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// Where `hardtack` is: `--hardtack`, else beside this executable.
    static func locateExecutable(_ explicit: String?) -> String? {
        if let explicit { return access(explicit, X_OK) == 0 ? explicit : nil }
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let candidate = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("hardtack").path
        return access(candidate, X_OK) == 0 ? candidate : nil
    }
}
