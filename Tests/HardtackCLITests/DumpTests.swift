import Foundation
import Testing

/// `dump` shows every visible item's attributes, as text or valid JSON, and never a secret.
@Suite struct DumpTests {
    @Test func dumpAsJSONParsesAndHoldsNoSecret() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "svc", account: "alice", secret: "generic-SECRET", extra: ["-j", "tab\there \"q\""])
        let internet = try await sandbox.keychain([
            "add-internet-password", "-s", "example.com", "-a", "bob", "-r", "https", "-P", "443", "-p", "/", "-w",
            "internet-SECRET",
        ])
        #expect(internet.status == 0)

        let result = try await sandbox.keychain(["dump", "--json"])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("SECRET"))
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["store"] as? String == sandbox.store)
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(items.count == 2)
        let classes = Set(items.compactMap { $0["class"] as? String })
        #expect(classes == ["genericPassword", "internetPassword"])
        let generic = try #require(items.first { $0["class"] as? String == "genericPassword" }?["attributes"] as? [String: Any])
        #expect(generic["service"] as? String == "svc")
        #expect(generic["comment"] as? String == "tab\there \"q\"")
        #expect(generic["creationDate"] is String)
        let web = try #require(items.first { $0["class"] as? String == "internetPassword" }?["attributes"] as? [String: Any])
        #expect((web["port"] as? NSNumber)?.intValue == 443)
        #expect(web["server"] as? String == "example.com")

        let text = try await sandbox.keychain(["dump"])
        #expect(text.status == 0)
        #expect(text.stdout.contains(#"    "port"<integer>=443"#))
        #expect(text.stdout.contains(#"    "comment"<string>="tab\there \"q\"""#))
        #expect(!text.stdout.contains("SECRET"))
    }

    @Test func dumpOfAnEmptyStore() async throws {
        let sandbox = CLISandbox()
        let result = try await sandbox.keychain(["dump", "--json"])
        #expect(result.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((document["items"] as? [Any])?.isEmpty == true)
    }
}
