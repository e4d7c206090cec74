import Composition
import Data
import Domain
import Foundation
import TestSupport
import Testing

/// A configuration can be printed, interpolated, reflected and dumped without showing the PostgreSQL
/// password in its URI, a passphrase, or a password in the server's URL.
@Suite struct ConfigurationDescriptionTests {
    static let password = "pg-pass-7f3e9a"
    static let passphrase = "correct horse battery staple"
    static let serverPassword = "srv-pass-51c2"

    /// Every way Swift turns `value` into text.
    static func texts(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(describing: value), String(reflecting: value), dumped]
    }

    @Test func aStoreConfigurationShowsItsRedactedLocationOnly() {
        let configuration = StoreConfiguration(
            storePath: "postgresql://hardtack:\(Self.password)@db.example:5432/tokens",
            key: .passphrase(SecretBytes(utf8: Self.passphrase)))
        for text in Self.texts(configuration) {
            #expect(!text.contains(Self.password), "\(text)")
            #expect(!text.contains(Self.passphrase), "\(text)")
            #expect(text.contains(configuration.displayLocation), "\(text)")
        }
        #expect(configuration.displayLocation.contains("db.example"))
    }

    @Test func anAppConfigurationShowsNoPasswordOfItsStoreOrServer() throws {
        let store = StoreConfiguration(
            storePath: "postgres://app:\(Self.password)@db.example/tokens", key: .keyFile(path: "/etc/app/store.key"))
        var configuration = AppConfiguration(
            store: store, server: .remote(try #require(URL(string: "https://client:\(Self.serverPassword)@id.example/"))))
        configuration.account = try #require(AccountName("alice"))
        for text in Self.texts(configuration) {
            #expect(!text.contains(Self.password), "\(text)")
            #expect(!text.contains(Self.serverPassword), "\(text)")
            #expect(text.contains("id.example"), "\(text)")
            #expect(text.contains("alice"), "\(text)")
        }
    }

    @Test func aStoreFileIsShownAsItsPath() {
        let configuration = StoreConfiguration(storePath: "/var/lib/app/tokens.db", key: .keyFile(path: "/k"))
        #expect("\(configuration)".contains("/var/lib/app/tokens.db"))
        #expect(String(reflecting: configuration).contains("the key file /k"))
    }
}
