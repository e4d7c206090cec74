#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// `hardtack serve` for the suites that need a live server.
extension CLISandbox {
    /// Starts `hardtack serve` on a free port and returns it with its URL once it listens.
    func startServer(_ extra: [String] = []) async throws -> (RunningProcess, String) {
        let executable = try #require(HardtackExecutable.path)
        let server = try launch(executable, ["serve", "--port", "0"] + extra)
        for _ in 0..<200 {
            let out = String(decoding: FileBytes.read(server.outPath), as: UTF8.self)
            if let line = out.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return (server, String(line.dropFirst("listening on ".count)))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        server.process.terminate()
        Issue.record("hardtack serve did not start: \(String(decoding: FileBytes.read(server.errPath), as: UTF8.self))")
        throw CancellationError()
    }

    /// The server's counters (`GET /debug/stats`).
    func serverStats(_ url: String) throws -> [String: Int] {
        let data = try Data(contentsOf: try #require(URL(string: url + "/debug/stats")))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
    }
}
