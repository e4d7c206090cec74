import Data
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// Real connections to the test server with TLS on: the default check for a host that is not loopback,
/// the URI's own TLS settings, and a typed error naming the cause of each failure, never the password.
/// `db.hardtack.test` and `wrong.hardtack.test` reach the server through `hostaddr=127.0.0.1`; libpq
/// checks the certificate against the host name, and the connector sees a host that is not loopback.
@Suite struct PostgreSQLTLSTests {
    private func failure(_ uri: String) throws -> PostgreSQLError {
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(uri: uri, options: .init(connectTimeout: .seconds(5)))
        }
        try TestServer.expectNoSecret(error)
        return error
    }

    @Test func verifyFullWithTheServersCASucceedsOverTLS() throws {
        let ca = try TLSTestServer.authority()
        let connection = try PostgreSQLConnection(uri: TLSTestServer.uri("sslmode=verify-full&sslrootcert=\(ca)"))
        #expect(try TLSTestServer.usesTLS(connection))
    }

    @Test func aHostNameThatIsNotLoopbackIsCheckedByDefault() throws {
        let ca = try TLSTestServer.authority()
        let connection = try PostgreSQLConnection(
            uri: TLSTestServer.uri(host: "db.hardtack.test", "hostaddr=127.0.0.1&sslrootcert=\(ca)"))
        #expect(try TLSTestServer.usesTLS(connection))
        // The same connection with no CA to check against fails: the mode was verify-full, not prefer.
        let error = try failure(TLSTestServer.uri(host: "db.hardtack.test", "hostaddr=127.0.0.1&sslrootcert=/nonexistent/root.crt"))
        #expect(error.kind == .tlsCheckFailed)
        #expect(error.tlsFailure?.cause == .noRootCertificates(path: "/nonexistent/root.crt"))
        #expect(error.tlsFailure?.modeIsDefault == true)
        #expect(error.description.contains("no file of trusted CA certificates at /nonexistent/root.crt"), "\(error)")
        #expect(error.description.contains("sslmode=verify-full is the default"), "\(error)")
    }

    @Test func aCertificateFromAnotherCAIsRefused() throws {
        let other = try TLSTestServer.otherAuthority()
        for uri in [
            try TLSTestServer.uri("sslmode=verify-full&sslrootcert=\(other)"),
            try TLSTestServer.uri(host: "db.hardtack.test", "hostaddr=127.0.0.1&sslrootcert=\(other)"),
        ] {
            let error = try failure(uri)
            #expect(error.kind == .tlsCheckFailed)
            #expect(error.tlsFailure?.cause == .untrustedCertificate)
            #expect(error.tlsFailure?.rootCertificates == other)
            #expect(error.description.contains("not signed by a CA in \(other)"), "\(error)")
        }
        #expect(try failure(TLSTestServer.uri("sslmode=verify-full&sslrootcert=\(other)")).tlsFailure?.modeIsDefault == false)
    }

    @Test func aCertificateForAnotherHostNameIsRefused() throws {
        let ca = try TLSTestServer.authority()
        let error = try failure(TLSTestServer.uri(host: "wrong.hardtack.test", "hostaddr=127.0.0.1&sslrootcert=\(ca)"))
        #expect(error.kind == .tlsCheckFailed)
        #expect(error.tlsFailure?.cause == .hostNameMismatch)
        #expect(error.tlsFailure?.modeIsDefault == true)
        #expect(error.description.contains("not issued for the host name"), "\(error)")
        #expect(error.description.contains("wrong.hardtack.test"), "\(error)")
    }

    @Test func theURIsModeOptsOutOfTheCheck() throws {
        // require: encrypted, the certificate unchecked when there is no root certificate file.
        let required = try PostgreSQLConnection(
            uri: TLSTestServer.uri(
                host: "wrong.hardtack.test", "hostaddr=127.0.0.1&sslmode=require&sslrootcert=/nonexistent/root.crt"))
        #expect(try TLSTestServer.usesTLS(required))
        // When the file exists, libpq checks the CA under require too (as verify-ca), for compatibility.
        let other = try TLSTestServer.otherAuthority()
        let checked = try failure(
            TLSTestServer.uri(host: "wrong.hardtack.test", "hostaddr=127.0.0.1&sslmode=require&sslrootcert=\(other)"))
        #expect(checked.tlsFailure?.cause == .untrustedCertificate)
        #expect(checked.tlsFailure?.modeIsDefault == false)
        #expect(!checked.description.contains("is the default"), "\(checked)")
        let plain = try PostgreSQLConnection(
            uri: TLSTestServer.uri(host: "wrong.hardtack.test", "hostaddr=127.0.0.1&sslmode=disable"))
        #expect(try !TLSTestServer.usesTLS(plain))
    }

    @Test func aServerWithoutTLSIsRefusedWhenTLSIsRequired() throws {
        let listener = PlaintextOnlyListener()
        let uri = "postgresql://hardtack:not-the-password-\(UInt32.random(in: 0...UInt32.max))@db.hardtack.test:\(listener.port)/postgres?hostaddr=127.0.0.1"
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(uri: uri, options: .init(connectTimeout: .seconds(5)))
        }
        #expect(error.kind == .tlsCheckFailed)
        #expect(error.tlsFailure?.cause == .serverOffersNoTLS)
        #expect(error.description.contains("does not offer TLS"), "\(error)")
        #expect(!error.description.contains("not-the-password"))
    }

    @Test func theMachinesOwnNonLoopbackAddressIsCheckedByDefault() throws {
        let addresses = try TLSTestServer.outsideAddresses()
        try #require(
            !addresses.isEmpty,
            "Tools/postgres listens on this machine's first non-loopback IPv4 address; this machine has none")
        let ca = try TLSTestServer.authority()
        for address in addresses {
            let connection = try PostgreSQLConnection(uri: TLSTestServer.uri(host: address, "sslrootcert=\(ca)"))
            #expect(try TLSTestServer.usesTLS(connection))
            let error = try failure(TLSTestServer.uri(host: address, "sslrootcert=\(try TLSTestServer.otherAuthority())"))
            #expect(error.tlsFailure?.cause == .untrustedCertificate)
            #expect(error.tlsFailure?.modeIsDefault == true)
        }
    }

    @Test func theStoreSaysTheServerIsNotVerifiedWithoutThePassword() throws {
        let other = try TLSTestServer.otherAuthority()
        let uri = try TLSTestServer.uri(host: "db.hardtack.test", "hostaddr=127.0.0.1&sslrootcert=\(other)")
        let error = try #require(throws: SecureStoreError.self) { try PostgreSQLSecureItemStore.exists(uri: uri) }
        guard case .storage(let failure) = error else {
            Issue.record("not a storage failure: \(error)")
            return
        }
        #expect(failure.kind == .serverNotVerified)
        #expect(failure.message.contains("failed the TLS check"), "\(failure)")
        #expect(failure.message.contains("not signed by a CA"), "\(failure)")
        let password = try TestServer.password()
        for text in [failure.description, failure.verboseDetail, String(describing: error), String(reflecting: error)] {
            #expect(!text.contains(password), "\(text)")
        }
    }
}
