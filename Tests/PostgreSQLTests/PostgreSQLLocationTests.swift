@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// URIs parsed by libpq, and their redacted form. These need no server.
@Suite struct PostgreSQLLocationTests {
    @Test func aPasswordInTheUserInformationIsRedacted() throws {
        let location = try PostgreSQLLocation("postgresql://alice:s3cr%40t!@db.example.com:6543/app")
        #expect(location.redacted == "postgresql://alice:***@db.example.com:6543/app")
        #expect(location.hasPassword)
        #expect(location.user == "alice" && location.host == "db.example.com")
        #expect(location.port == "6543" && location.database == "app")
        for shown in [location.description, String(reflecting: location), "\(location)", dumped(location)] {
            #expect(!shown.contains("s3cr"), "\(shown)")
        }
    }

    @Test func aURIWithoutPasswordIsShownAsIs() throws {
        for uri in ["postgres://alice@db/app", "postgresql:///app?host=/tmp", "postgresql://db:5432"] {
            let location = try PostgreSQLLocation(uri)
            #expect(location.redacted == uri)
            #expect(!location.hasPassword)
        }
    }

    @Test func passwordQueryParametersAreRedacted() throws {
        let location = try PostgreSQLLocation(
            "postgresql://bob:first-secret@db/app?sslmode=disable&pass%77ord=second-secret&application_name=x")
        #expect(location.redacted == "postgresql://bob:***@db/app?sslmode=disable&pass%77ord=***&application_name=x")
        #expect(location.hasPassword)
        let query = try PostgreSQLLocation("postgres://db/app?user=carol&password=third-secret")
        #expect(query.redacted == "postgres://db/app?user=carol&password=***")
        #expect(query.user == "carol")
        #expect(query.scrub("failed for third-secret") == "failed for ***")
    }

    @Test(arguments: [
        "postgresql://alice:hunt%zzer2@db/app",  // bad percent-encoding in the password
        "postgresql://db/app?password=hunt%zzer2",
        "postgresql://alice:hunter2@db/app?nosuchoption=1",
        "postgresql://alice:hunter2@[::1/app",
        "host=db password=hunter2",
        "mysql://alice:hunter2@db/app",
    ])
    func anInvalidURIIsRefusedWithoutItsPassword(uri: String) throws {
        let error = try #require(throws: PostgreSQLError.self) { try PostgreSQLLocation(uri) }
        #expect(error.kind == .invalidLocation)
        #expect(!error.description.contains("hunt"), "\(error)")
        #expect(!String(reflecting: error).contains("hunt"))
    }

    @Test func libpqsOwnMessageIsKeptWhenItIsSafe() throws {
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLLocation("postgresql://alice:hunter2@db/app?nosuchoption=1")
        }
        #expect(error.description.contains("nosuchoption"), "\(error)")
        #expect(error.description.contains("postgresql://alice:***@db/app"), "\(error)")
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
