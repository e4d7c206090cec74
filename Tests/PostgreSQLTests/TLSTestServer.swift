import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// The TLS side of the test server: `Tools/postgres` turns TLS on with a throwaway CA that certifies
/// `localhost`, `db.hardtack.test`, 127.0.0.1 and the machine's non-loopback address, and leaves a
/// second CA beside it that certifies nothing. The files are found from the server itself.
enum TLSTestServer {
    /// The directory of the server's certificate (`ca.crt`, `other-ca.crt`, `server.crt`).
    static func directory() throws -> String {
        let connection = try TestServer.connect()
        let certificate = try connection.query("SHOW ssl_cert_file").string(0, 0)
        #expect(try connection.query("SHOW ssl").string(0, 0) == "on", "the test server has no TLS: start it with Tools/postgres")
        return (certificate as NSString).deletingLastPathComponent
    }

    /// The CA that signed the server's certificate.
    static func authority() throws -> String { try directory() + "/ca.crt" }

    /// A CA that did not.
    static func otherAuthority() throws -> String { try directory() + "/other-ca.crt" }

    /// The addresses the server listens on besides loopback.
    static func outsideAddresses() throws -> [String] {
        let listening = try TestServer.connect().query("SHOW listen_addresses").string(0, 0)
        return listening.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !PostgreSQLTLSDefault.isLocal($0) && $0 != "*" }
    }

    /// The test URI with its host replaced by `host` and `query` appended.
    static func uri(host: String? = nil, _ query: String) throws -> String {
        var components = try #require(URLComponents(string: TestServer.uri()))
        if let host { components.host = host }
        return try #require(components.string) + "?" + query
    }

    /// Whether the connection's session uses TLS, as the server sees it.
    static func usesTLS(_ connection: PostgreSQLConnection) throws -> Bool {
        try connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").bool(0, 0)
    }
}
