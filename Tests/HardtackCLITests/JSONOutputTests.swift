import Foundation
import TestSupport
import Testing

/// `--json` where a script reads the output (verify, status, find, me), with the fields docs/cli.md
/// lists; and verify's counts, printed even when the store is damaged.
@Suite struct JSONOutputTests {
    let sandbox = CLISandbox()

    private func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    @Test func verifyPrintsItsCountsSoundOrDamaged() async throws {
        try await sandbox.addGeneric(service: "one", account: "a", secret: "first")
        try await sandbox.addGeneric(service: "two", account: "a", secret: "second")
        let sound = try object(try await sandbox.keychain(["verify", "--json"]).stdout)
        #expect(sound["sound"] as? Int == 2 && sound["damaged"] as? Int == 0)
        #expect(sound["complete"] as? Bool == true && sound["databaseCheck"] as? String == "ok")

        // One bit in page 1's free space: the page checksum fails before the store can open, and the
        // items are counted as salvage reads them.
        var bytes = FileBytes.read(sandbox.store)
        #expect(bytes[1000] == 0)
        bytes[1000] = 0x40
        try FileBytes.write(bytes, to: sandbox.store)
        let text = try await sandbox.keychain(["verify"])
        #expect(text.status == 65)
        #expect(text.stdout.contains("sound items: 2") && text.stdout.contains("damaged items: 0"), "\(text.stdout)")
        let json = try await sandbox.keychain(["verify", "--json"])
        #expect(json.status == 65)
        let damaged = try object(json.stdout)
        #expect(damaged["sound"] as? Int == 2 && damaged["damaged"] as? Int == 0)
        #expect(damaged["complete"] as? Bool == false && damaged["countedBy"] as? String == "salvage")
        #expect((damaged["damage"] as? [String: Any])?["pages"] as? Int == 1)
        #expect((damaged["problem"] as? String)?.contains("checksum") == true)
        #expect(!json.stdout.contains("first") && !json.stdout.contains("second"))
    }

    @Test func aWrongKeyIsNotDamageAndPrintsNoCounts() async throws {
        try await sandbox.addGeneric(service: "one", account: "a", secret: "first")
        // A store made by another key cannot be told from damage by verify: a wrong key is 77, no counts.
        let wrong = try await sandbox.keychain(["--passphrase-file", try sandbox.privateFile("p", "nope\n"), "verify", "--json"])
        #expect(wrong.status == 77)
        #expect(wrong.stdout.isEmpty)
    }

    @Test func statusAndFindSpeakJSON() async throws {
        let none = try await sandbox.run(["status", "--store", sandbox.store, "--json"])
        #expect(none.status == 3)
        let decision = try object(none.stdout)
        #expect(decision["decision"] as? String == "signedOut" && decision["mainFlow"] as? Bool == false)
        #expect(decision["user"] is NSNull && decision["store"] as? String == sandbox.store)

        try await sandbox.addGeneric(service: "svc", account: "acct", secret: "hidden", extra: ["-l", "Label"])
        let find = try await sandbox.keychain(["find-generic-password", "-s", "svc", "--json"])
        #expect(find.status == 0, "\(find.stderr)")
        let item = try object(find.stdout)
        #expect(item["class"] as? String == "genericPassword")
        let attributes = try #require(item["attributes"] as? [String: Any])
        #expect(attributes["account"] as? String == "acct" && attributes["label"] as? String == "Label")
        #expect(!find.stdout.contains("hidden"))
        #expect(try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w", "--json"]).status == 2)
    }

    @Test func meSpeaksJSON() async throws {
        let (server, url) = try await sandbox.startServer()
        defer { server.process.terminate() }
        let signIn = try await sandbox.run(
            ["signin", "--server", url, "--store", sandbox.store, "--username", "alice", "--password-stdin"],
            input: "wonderland\n")
        #expect(signIn.status == 0, "\(signIn.stderr)")
        let me = try await sandbox.run(["me", "--server", url, "--store", sandbox.store, "--json", "--concurrent", "3"])
        #expect(me.status == 0, "\(me.stderr)")
        let document = try object(me.stdout)
        #expect(document["calls"] as? Int == 3 && document["refreshes"] as? Int == 0)
        let user = try #require(document["user"] as? [String: Any])
        #expect(user["name"] as? String != nil && user["id"] as? String != nil)
        let status = try object(try await sandbox.run(["status", "--store", sandbox.store, "--json"]).stdout)
        #expect(status["decision"] as? String == "signedIn" && status["mainFlow"] as? Bool == true)
        #expect(status["accessTokenSecondsLeft"] as? Int != nil)
        #expect(!me.stdout.contains("eyJ") && !status.description.contains("eyJ"))
    }
}
