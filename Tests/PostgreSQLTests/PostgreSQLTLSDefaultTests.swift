@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// Which connections the connector asks libpq to check with `sslmode=verify-full`: every one that
/// leaves this machine, unless the URI, the environment or a service names the mode. These need no
/// server.
@Suite struct PostgreSQLTLSDefaultTests {
    private func mode(_ uri: String, _ environment: [String: String] = [:]) throws -> String? {
        PostgreSQLTLSDefault.sslMode(for: try PostgreSQLLocation(uri), environment: environment)
    }

    @Test(arguments: [
        "postgresql://u:pw@db.example.com/app", "postgresql://u@10.1.2.3:5432/app", "postgresql://[2001:db8::7]/app",
        "postgresql://[fd00::2]:6000/app", "postgresql://localhost.example.com/app", "postgresql://128.0.0.1/app",
        "postgresql://localhost,db.example.com/app", "postgresql://127.0.0.1,10.0.0.1/app",
        "postgresql://localhost/app?hostaddr=10.0.0.5", "postgresql:///app?host=db.example.com",
        "postgresql://db.example.com/app?sslrootcert=/etc/ca.pem&sslcert=/c&sslkey=/k&sslsni=1",
        "postgresql://[::2]/app",
    ])
    func aHostOffThisMachineIsCheckedFully(uri: String) throws {
        #expect(try mode(uri) == "verify-full", "\(uri)")
    }

    @Test(arguments: [
        "postgresql://u:pw@127.0.0.1:5432/app", "postgresql://127.5.6.7/app", "postgresql://localhost/app",
        "postgresql://LOCALHOST./app", "postgresql://[::1]:5432/app", "postgresql:///app",
        "postgresql:///app?host=/var/run/postgresql", "postgresql://%2Ftmp%2Fpg/app", "postgresql://localhost,127.0.0.1/app",
        "postgresql://localhost/app?hostaddr=127.0.0.1", "postgresql:///app?host=@abstract",
        "postgresql://[::ffff:127.0.0.1]/app",
    ])
    func aConnectionOnThisMachineKeepsLibpqsDefault(uri: String) throws {
        #expect(try mode(uri) == nil, "\(uri)")
    }

    @Test(arguments: [
        "postgresql://db.example.com/app?sslmode=disable", "postgresql://db.example.com/app?sslmode=require",
        "postgresql://db.example.com/app?sslmode=prefer", "postgresql://10.0.0.1/app?sslmode=verify-ca",
        "postgresql://db.example.com/app?requiressl=1", "postgresql://db.example.com/app?service=prod",
    ])
    func aModeTheURINamesIsLeftToIt(uri: String) throws {
        #expect(try mode(uri) == nil, "\(uri)")
    }

    @Test func theEnvironmentNamesTheModeOrTheHostAsForPsql() throws {
        let remote = "postgresql://db.example.com/app"
        #expect(try mode(remote, ["PGSSLMODE": "require"]) == nil)
        #expect(try mode(remote, ["PGSSLMODE": "disable"]) == nil)
        #expect(try mode(remote, ["PGSERVICE": "prod"]) == nil)
        #expect(try mode(remote, ["PGREQUIRESSL": "1"]) == nil)
        #expect(try mode(remote, ["PGSSLMODE": ""]) == "verify-full")
        // Other variables do not change the mode: libpq reads them itself.
        #expect(try mode(remote, ["PGSSLROOTCERT": "/etc/ca.pem", "PGSSLCERT": "/c"]) == "verify-full")
        // With no host in the URI, libpq connects to PGHOST (else its default socket).
        #expect(try mode("postgresql:///app", ["PGHOST": "db.example.com"]) == "verify-full")
        #expect(try mode("postgresql:///app", ["PGHOST": "/var/run/postgresql"]) == nil)
        #expect(try mode("postgresql:///app", ["PGHOSTADDR": "10.0.0.9"]) == "verify-full")
        #expect(try mode("postgresql://127.0.0.1/app", ["PGHOST": "db.example.com"]) == nil)
    }

    @Test func loopbackAddressesAreOnlyTheLoopbackRanges() {
        for address in ["127.0.0.1", "127.255.255.254", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.2"] {
            #expect(PostgreSQLTLSDefault.isLoopbackAddress(address), "\(address)")
        }
        for address in ["128.0.0.1", "10.0.0.1", "::2", "::", "0.0.0.0", "::ffff:10.0.0.1", "localhost", "127.0.0.1.example"] {
            #expect(!PostgreSQLTLSDefault.isLoopbackAddress(address), "\(address)")
        }
        for host in ["", "/run/postgresql", "@sock", "localhost", "LocalHost", "localhost.", "127.0.0.1", "::1"] {
            #expect(PostgreSQLTLSDefault.isLocal(host), "\(host)")
        }
        for host in ["db.example.com", "localhost.example.com", "mylocalhost", "10.0.0.1", "fd00::2"] {
            #expect(!PostgreSQLTLSDefault.isLocal(host), "\(host)")
        }
    }
}
