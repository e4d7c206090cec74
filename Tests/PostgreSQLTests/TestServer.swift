import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// The real PostgreSQL server the tests run against, named by `HARDTACK_TEST_POSTGRES`.
///
/// Without it the tests fail, saying how to get one: a suite that skips itself silently would pass
/// on a machine that never ran it.
enum TestServer {
    /// The URI of the server, with its password.
    static func uri() throws -> String {
        guard let uri = ProcessInfo.processInfo.environment["HARDTACK_TEST_POSTGRES"], !uri.isEmpty else {
            throw MissingServer()
        }
        return uri
    }

    /// The server's location.
    static func location() throws -> PostgreSQLLocation { try PostgreSQLLocation(uri()) }

    /// A new connection to the server.
    static func connect(_ options: PostgreSQLConnectionOptions = .init()) throws -> PostgreSQLConnection {
        try PostgreSQLConnection(to: location(), options: options)
    }

    /// The server's password, as the URI carries it (Tools/postgres makes one at random).
    static func password() throws -> String {
        let password = try #require(URLComponents(string: uri())?.password, "the test URI has no password")
        return password.removingPercentEncoding ?? password
    }

    /// The URI with its password, or its port, changed.
    static func uri(password: String? = nil, port: Int? = nil) throws -> String {
        var components = try #require(URLComponents(string: uri()))
        if let password { components.password = password }
        if let port { components.port = port }
        return try #require(components.string)
    }

    /// Fails the test when `error`'s description shows the server's password or `secrets`.
    static func expectNoSecret(_ error: PostgreSQLError, _ secrets: [String] = []) throws {
        for secret in try [password()] + secrets {
            #expect(!error.description.contains(secret), "a secret shows in: \(error.description)")
            #expect(!String(reflecting: error).contains(secret))
        }
    }

    /// Why a test cannot run.
    struct MissingServer: Error, CustomStringConvertible {
        var description: String {
            "HARDTACK_TEST_POSTGRES is not set: run the tests with Tools/test (it starts a throwaway PostgreSQL), "
                + "or start one with `Tools/postgres start` and export HARDTACK_TEST_POSTGRES=<the URI it prints>"
        }
    }
}
