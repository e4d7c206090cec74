#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// `hardtack serve` for the suites that need a live server.
extension CLISandbox {
    /// Starts `hardtack serve` on a free port and returns it with its URL once it listens. The wait is bounded
    /// at 60 s only against a hang (see ``RunningProcess/awaitOutput(bound:_:)``).
    func startServer(_ extra: [String] = []) async throws -> (RunningProcess, String) {
        let executable = try #require(HardtackExecutable.path)
        let server = try launch(executable, ["serve", "--port", "0"] + extra)
        let url = try await server.awaitOutput { server in
            server.outputSoFar.split(separator: "\n").first { $0.hasPrefix("listening on ") }
                .map { String($0.dropFirst("listening on ".count)) }
        }
        if let url { return (server, url) }
        let state = server.process.isRunning ? "still starting after 60 s" : "it ended"
        server.process.terminate()
        Issue.record(
            "hardtack serve did not start (\(state)); stdout: \(server.outputSoFar); stderr: \(server.errorsSoFar)")
        throw CancellationError()
    }

    /// The server's counters (`GET /debug/stats`).
    func serverStats(_ url: String) throws -> [String: Int] {
        let data = try Data(contentsOf: try #require(URL(string: url + "/debug/stats")))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
    }
}
