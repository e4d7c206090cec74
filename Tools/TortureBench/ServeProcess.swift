import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `hardtack serve` process on a free loopback port, with its counters from `GET /debug/stats`.
final class ServeProcess {
    /// The process.
    let child: ChildProcess
    /// Its port.
    let port: UInt16
    /// Everything it printed on standard output (its first line is `listening on …`).
    let firstLine: String

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Starts `hardtack serve --port 0` with `arguments` and waits until it listens.
    init(_ context: ScenarioContext, _ arguments: [String] = [], errors: String) throws {
        child = try ChildProcess.spawn(
            context.hardtack, ["serve", "--port", "0"] + arguments, environment: context.sandboxEnvironment,
            stdout: .pipe, stderr: .file(errors))
        guard let (port, line) = child.listeningPort(timeout: 30) else {
            child.killAndReap()
            throw ChildProcess.SpawnError(description: "hardtack serve did not say where it listens")
        }
        self.port = port
        firstLine = line
    }

    deinit { stop() }

    /// Whether the process is still running.
    var isAlive: Bool { child.wait(timeout: 0) == nil }

    /// The server's counters (`signIns`, `refreshes`, `reuseDetections`, …), or `nil` when it does not answer.
    func stats() -> [String: Int]? {
        let reply = LoopbackClient.get(port: port, "/debug/stats")
        guard reply.status == 200 else { return nil }
        return try? JSONDecoder().decode([String: Int].self, from: Data(reply.body))
    }

    /// Stops it with SIGTERM (SIGKILL after 10 s); returns how it ended.
    @discardableResult
    func stop() -> ChildProcess.Termination? {
        if let ended = child.wait(timeout: 0) { return ended }
        child.kill(SIGTERM)
        return child.wait(timeout: 10) ?? child.killAndReap()
    }
}
