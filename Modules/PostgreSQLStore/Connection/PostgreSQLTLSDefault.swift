#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The TLS check the connector asks libpq for when nothing else names one: `sslmode=verify-full` (TLS,
/// the certificate signed by a trusted CA and issued for the host named) for a server reached over
/// the network, and libpq's own default (`prefer`) for one on this machine.
///
/// A connection stays on this machine when every host it may use is a Unix socket directory (a path,
/// an `@` abstract socket, or none named: libpq's default socket), `localhost`, or a loopback address
/// (127.0.0.0/8, `::1`), and every `hostaddr` is a loopback address. Anything else gets `verify-full`,
/// unless the URI names `sslmode` (or the older `requiressl`), the environment does (`PGSSLMODE`,
/// `PGREQUIRESSL`), or a connection service is named (`service` in the URI or `PGSERVICE`), whose file
/// chooses, as it does for `psql`. The other TLS settings (`sslrootcert`, `sslcert`, `sslkey`,
/// `sslcrl`, `sslsni`, … and their `PGSSL*` variables) are never set here: libpq reads them from the
/// URI and the environment itself.
@_spi(HardtackTools) public enum PostgreSQLTLSDefault {
    /// The `sslmode` the connector asks for by default.
    @_spi(HardtackTools) public static let mode = "verify-full"

    /// The `sslmode` to ask libpq for when connecting to `location`, or `nil` to leave libpq's choice
    /// (the URI's, the environment's, a service file's, or `prefer`) alone.
    @_spi(HardtackTools) public static func sslMode(for location: PostgreSQLLocation, environment: [String: String])
        -> String?
    {
        let uri = location.connectionSettings
        func named(_ keyword: String, _ variable: String) -> String? {
            uri[keyword].flatMap { $0.isEmpty ? nil : $0 } ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        if named("sslmode", "PGSSLMODE") != nil || named("requiressl", "PGREQUIRESSL") != nil
            || named("service", "PGSERVICE") != nil
        {
            return nil
        }
        // libpq's lists are comma-separated; an empty host is its default socket, an empty hostaddr none.
        let hosts = (uri["host"] ?? environment["PGHOST"] ?? "").split(separator: ",", omittingEmptySubsequences: false)
        let addresses = (uri["hostaddr"] ?? environment["PGHOSTADDR"] ?? "").split(separator: ",")
        let local = hosts.allSatisfy { isLocal(String($0)) } && addresses.allSatisfy { isLoopbackAddress(String($0)) }
        return local ? nil : mode
    }

    /// Whether libpq reaches `host` without leaving this machine: a Unix socket (a path, an `@` abstract
    /// socket, or empty: the default socket), `localhost`, or a loopback address.
    @_spi(HardtackTools) public static func isLocal(_ host: String) -> Bool {
        if host.isEmpty || host.hasPrefix("/") || host.hasPrefix("@") { return true }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name == "localhost" || isLoopbackAddress(host)
    }

    /// Whether `text` is an IPv4 address in 127.0.0.0/8, or the IPv6 loopback `::1` (also as
    /// `::ffff:127.x.y.z`), with or without brackets.
    @_spi(HardtackTools) public static func isLoopbackAddress(_ text: String) -> Bool {
        var text = text
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        let mapped = bytes[..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        return mapped && bytes[12] == 127
    }
}
