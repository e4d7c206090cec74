/// Why libpq refused a server at its TLS check, as facts: the cause, the `sslmode` that asked for the
/// check and whether it was the connector's default ([`PostgreSQLTLSDefault`]), and where the trusted
/// CAs were looked for. It never holds a password.
@_spi(HardtackTools) public struct PostgreSQLTLSFailure: Sendable, Equatable {
    /// What the check found.
    @_spi(HardtackTools) public enum Cause: Sendable, Equatable {
        /// The server does not offer TLS (it answered no to libpq's request), and the mode requires it.
        case serverOffersNoTLS
        /// There is no file of trusted CA certificates where libpq looked (the path it named).
        case noRootCertificates(path: String)
        /// The server's certificate is not signed by a CA in the root certificates (or has expired, or
        /// is otherwise invalid: OpenSSL says only "certificate verify failed").
        case untrustedCertificate
        /// The certificate is valid but issued for other names than the host the connection named.
        case hostNameMismatch
    }

    /// What the check found.
    @_spi(HardtackTools) public let cause: Cause
    /// Whether the check was the connector's default (`sslmode=verify-full` for a host that is not on
    /// this machine), rather than a mode the URI, the environment or a service file named.
    @_spi(HardtackTools) public let modeIsDefault: Bool
    /// The CA certificates libpq checks against: the URI's `sslrootcert`, else `PGSSLROOTCERT`, else
    /// `~/.postgresql/root.crt`.
    @_spi(HardtackTools) public let rootCertificates: String

    /// A failure of `cause`, under the default mode or a named one, checked against `rootCertificates`.
    @_spi(HardtackTools) public init(cause: Cause, modeIsDefault: Bool, rootCertificates: String) {
        self.cause = cause
        self.modeIsDefault = modeIsDefault
        self.rootCertificates = rootCertificates
    }

    /// The cause libpq's (English) message names, or `nil` when it names none of them.
    static func cause(of message: String) -> Cause? {
        if message.contains("does not match host name") { return .hostNameMismatch }
        if message.contains("certificate verify failed") { return .untrustedCertificate }
        if message.contains("server does not support SSL, but SSL was required") { return .serverOffersNoTLS }
        if let range = message.range(of: "root certificate file \""), message.contains("does not exist") {
            let path = message[range.upperBound...].prefix { $0 != "\"" }
            return .noRootCertificates(path: String(path))
        }
        return nil
    }
}

extension PostgreSQLTLSFailure: CustomStringConvertible {
    /// The cause in words, and which check asked for it; never a password.
    @_spi(HardtackTools) public var description: String {
        var text: String
        switch cause {
        case .serverOffersNoTLS:
            text = "the server does not offer TLS, and the connection requires it"
        case .noRootCertificates(let path):
            text = "there is no file of trusted CA certificates at \(path) to check the server's certificate "
                + "against (libpq reads the URI's sslrootcert, else PGSSLROOTCERT, else ~/.postgresql/root.crt; "
                + "the system's CAs are in /etc/ssl/certs/ca-certificates.crt)"
        case .untrustedCertificate:
            text = "the server's certificate is not signed by a CA in \(rootCertificates) (or is expired or invalid)"
        case .hostNameMismatch:
            text = "the server's certificate is not issued for the host name the connection named"
        }
        if modeIsDefault {
            text += "; sslmode=\(PostgreSQLTLSDefault.mode) is the default for a host that is not loopback or a Unix "
                + "socket, when neither the URI nor PGSSLMODE names an sslmode"
        }
        return text
    }
}
