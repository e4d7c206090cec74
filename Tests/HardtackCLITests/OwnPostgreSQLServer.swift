#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// A PostgreSQL server of one test's own, from `Tools/postgres start` (not the shared
/// `HARDTACK_TEST_POSTGRES` one, which other tests use), so that the test can stop it as a crash
/// would and start it again on the same data directory and port. Its programs are started with
/// `posix_spawn` and reaped with `waitpid`: Foundation's `Process` was seen never to notice the end of
/// `Tools/postgres start` (left a zombie) once the server it started had detached.
struct OwnPostgreSQLServer {
    /// The server's URI, with its password (never printed by the test).
    let uri: String
    /// The server's directory (`data`, `server.log`, its socket), as `Tools/postgres` printed it.
    let directory: String
    /// The directory `Tools/postgres` made it in (its `TMPDIR`), removed by ``stop()``.
    let parent: String
    /// Where the programs' output goes.
    let scratch: String

    /// The repository's `Tools/postgres`.
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/postgres").path

    /// Starts a server in a directory the `postgres` user can reach (as root it runs as that user). The
    /// programs run and are waited for on a thread of their own, never one of Swift's few shared ones.
    static func start(scratch: String) async throws -> OwnPostgreSQLServer {
        let parent = "/tmp/hardtack-cli-pg." + UUID().uuidString
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        chmod(parent, 0o755)
        let started = try await DedicatedThread.run {
            try run(script, ["start"], environment: ["TMPDIR": parent], scratch: scratch)
        }
        let uri = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let directory = started.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "server in ") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " })
        }.first
        guard started.status == 0, uri.hasPrefix("postgresql://"), let directory else {
            try? FileManager.default.removeItem(atPath: parent)
            throw StartFailed(description: "Tools/postgres start failed: \(started.stderr.suffix(300))")
        }
        return OwnPostgreSQLServer(uri: uri, directory: directory, parent: parent, scratch: scratch)
    }

    /// The port in the URI.
    var port: Int { URLComponents(string: uri)?.port ?? 0 }

    /// Runs `pg_ctl` as the owner of the data directory, with `environment` (`NAME=value`) added to its own.
    private func pgCtl(_ arguments: [String], environment: [String] = []) async throws -> CLIResult {
        let versions = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql").compactMap { Int($0) }
        let command = ["/usr/bin/env"] + environment + ["/usr/lib/postgresql/\(versions.max() ?? 0)/bin/pg_ctl"]
        let scratch = scratch
        if getuid() == 0 {
            return try await DedicatedThread.run {
                try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--"] + command + arguments, scratch: scratch)
            }
        }
        return try await DedicatedThread.run {
            try Self.run(command[0], Array(command.dropFirst()) + arguments, scratch: scratch)
        }
    }

    /// Stops the server with `pg_ctl stop -m immediate`: every backend killed, no checkpoint.
    func crash() async throws -> CLIResult {
        try await pgCtl(["-D", directory + "/data", "-m", "immediate", "-w", "-t", "30", "stop"])
    }

    /// Starts the stopped server again on the same data directory and port (crash recovery first). With a
    /// `language` (gettext's, `de`), the server says its messages in it, as one set up in that language does:
    /// `LANGUAGE` in its environment, and `lc_messages` a locale other than plain `C` (which ignores it; Debian
    /// 12's glibc honours it under `C.UTF-8`, and postgresql-15 carries the server's translations).
    func restart(language: String? = nil) async throws -> CLIResult {
        let options = "-p \(port)" + (language == nil ? "" : " -c lc_messages=C.UTF-8")
        return try await pgCtl(
            ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o", options, "start"],
            environment: language.map { ["LANGUAGE=\($0)"] } ?? [])
    }

    /// Stops the server as an operator does (`pg_ctl stop -m fast`), to start it again.
    func halt() async throws -> CLIResult {
        try await pgCtl(["-D", directory + "/data", "-m", "fast", "-w", "-t", "30", "stop"])
    }

    /// Stops the server and deletes its directories.
    func stop() {
        _ = try? Self.run(Self.script, ["stop", directory], environment: ["TMPDIR": parent], scratch: scratch)
        try? FileManager.default.removeItem(atPath: parent)
    }

    /// Runs `program` to its end, its output captured in files under `scratch`.
    private static func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], scratch: String
    ) throws -> CLIResult {
        let name = scratch + "/pg-" + UUID().uuidString
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, name + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, name + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, &actions, nil, argv, envp)
        guard code == 0 else { throw StartFailed(description: "cannot start \(program): error \(code)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0
        return CLIResult(
            status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
            stdout: String(decoding: FileBytes.read(name + ".out"), as: UTF8.self),
            stderr: String(decoding: FileBytes.read(name + ".err"), as: UTF8.self))
    }

    /// Why the server could not be started.
    struct StartFailed: Error, CustomStringConvertible {
        let description: String
    }
}
