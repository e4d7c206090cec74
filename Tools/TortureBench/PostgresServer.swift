import Foundation
@_spi(HardtackTools) import PostgreSQLStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throwaway PostgreSQL server of one scenario's own, from `Tools/postgres start`, so that the
/// scenario can stop, crash and restart it without disturbing anything else. As root the server runs
/// as the `postgres` user (as `Tools/postgres` does), so its programs are run through `runuser`.
final class PostgresServer {
    /// The server's URI (with its password: never printed).
    let uri: String
    /// The server's directory (`data`, `server.log`, its socket).
    let directory: String
    /// The port from the URI, given back to `pg_ctl start` on a restart.
    let port: String
    /// The server's programs (`/usr/lib/postgresql/N/bin`).
    private let binaries: String
    /// The directory `Tools/postgres` made the server's directory in (its `TMPDIR`).
    private let parent: String
    /// Runs the server's programs.
    private let runner: CommandRunner
    /// `Tools/postgres`.
    private let script: String

    private init(
        uri: String, directory: String, binaries: String, parent: String, runner: CommandRunner, script: String
    ) {
        self.uri = uri
        self.script = script
        self.directory = directory
        self.binaries = binaries
        self.parent = parent
        self.runner = runner
        let afterHost = uri.split(separator: "@").last.map(String.init) ?? ""
        self.port = afterHost.split(separator: ":").dropFirst().first.map { String($0.prefix { $0.isNumber }) } ?? ""
    }

    /// Starts a server for `context`'s scenario; on failure records it and returns `nil`.
    static func start(_ context: ScenarioContext) -> PostgresServer? {
        // A directory of its own that the `postgres` user can traverse (the scenario's scratch
        // directory may not be), and a private `TMPDIR`, so `Tools/postgres`'s "last started" file is
        // not shared with anyone else's server.
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        stopOrphans(in: base, script: context.package + "/Tools/postgres", runner: context.runner)
        let parent = makeDirectory(base + "/hardtack-torture-pg.\(getpid()).\(context.scenario.name)")
        chmod(parent, 0o755)
        let runner = CommandRunner(scratch: makeDirectory(context.work + "/runs"), environment: context.sandboxEnvironment)
        let script = context.package + "/Tools/postgres"
        let started = runner.run(script, ["start"], environment: ["TMPDIR": parent])
        let uri = started.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let directory =
            started.err.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: "server in ") else { return nil }
                return String(line[range.upperBound...].prefix { $0 != " " })
            }.first ?? ""
        guard started.status == 0, uri.hasPrefix("postgresql://"), !directory.isEmpty, let binaries = binaryDirectory()
        else {
            context.fail("cannot start a PostgreSQL server: \(started.err.suffix(300))")
            removeTree(parent)
            return nil
        }
        return PostgresServer(uri: uri, directory: directory, binaries: binaries, parent: parent, runner: runner, script: script)
    }

    /// Stops the servers of scenario processes that died without stopping theirs (killed by the bench at
    /// its time limit, say): their directories are named after the scenario process's id.
    private static func stopOrphans(in base: String, script: String, runner: CommandRunner) {
        let prefix = "hardtack-torture-pg."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0.isNumber }), pid != getpid(),
                kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            let parent = base + "/" + name
            for server in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] {
                _ = runner.run(script, ["stop", parent + "/" + server], environment: ["TMPDIR": parent])
            }
            removeTree(parent)
        }
    }

    /// The newest `/usr/lib/postgresql/*/bin`.
    private static func binaryDirectory() -> String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap { Int($0) }.max().map { "/usr/lib/postgresql/\($0)/bin" }
    }

    /// The cluster's data directory.
    var dataDirectory: String { directory + "/data" }

    /// Runs a server program (`pg_ctl`, `pg_dump`) as the owner of the data directory.
    @discardableResult
    func asOwner(_ program: String, _ arguments: [String], timeout: Double = 60) -> CommandRunner.Result {
        let path = binaries + "/" + program
        if getuid() == 0 {
            return runner.run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments, timeout: timeout)
        }
        return runner.run(path, arguments, timeout: timeout)
    }

    /// Stops the server with `pg_ctl stop -m immediate` (a crash: no checkpoint, every backend killed).
    func crash() -> Bool {
        asOwner("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "-t", "30", "stop"]).status == 0
    }

    /// Starts the stopped server again on its port (crash recovery runs first).
    func restart() -> Bool {
        asOwner(
            "pg_ctl",
            ["-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60", "-o", "-p \(port)", "start"],
            timeout: 90
        ).status == 0
    }

    /// `pg_dump` of the whole database, without the `\\restrict` / `\\unrestrict` lines (their key is
    /// random on every run).
    func dump() -> (text: [UInt8], error: String?) {
        let result = runner.run(binaries + "/pg_dump", ["--dbname=" + uri], timeout: 120)
        guard result.status == 0 else { return ([], result.err) }
        let lines = result.stdout.split(separator: 10, omittingEmptySubsequences: false).filter {
            !$0.starts(with: Array("\\restrict ".utf8)) && !$0.starts(with: Array("\\unrestrict ".utf8))
        }
        return (Array(lines.joined(separator: [10])), nil)
    }

    /// A new connection of its own to the server.
    func connect() throws -> PostgreSQLConnection {
        try PostgreSQLConnection(uri: uri)
    }

    /// Runs one SQL statement on a connection of its own; returns its error, if any.
    @discardableResult
    func sql(_ statement: String) -> String? {
        do {
            let connection = try connect()
            defer { connection.close() }
            try connection.execute(statement)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Stops the server and deletes its directory.
    func stop() {
        _ = runner.run(script, ["stop", directory], environment: ["TMPDIR": parent])
        removeTree(parent)
    }
}
