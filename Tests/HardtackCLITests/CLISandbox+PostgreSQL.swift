import Foundation
import Testing

extension CLISandbox {
    /// A new, empty database on the test server, and its URI (with the server's password).
    func freshPostgreSQLDatabase() async throws -> (uri: String, password: String) {
        guard let server = ProcessInfo.processInfo.environment["HARDTACK_TEST_POSTGRES"], !server.isEmpty else {
            throw PostgreSQLServerMissing()
        }
        let name = "cli_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let created = try await runProcess("/usr/bin/psql", [server, "-qc", "CREATE DATABASE \(name)"])
        try #require(created.status == 0, "psql: \(created.stderr)")
        var components = try #require(URLComponents(string: server))
        components.path = "/" + name
        let password = try #require(components.password)
        return (try #require(components.string), password.removingPercentEncoding ?? password)
    }
}

/// Why a test that needs the PostgreSQL server cannot run.
struct PostgreSQLServerMissing: Error, CustomStringConvertible {
    var description: String {
        "HARDTACK_TEST_POSTGRES is not set: run the tests with Tools/test (it starts a throwaway PostgreSQL)"
    }
}
