import Foundation
import TestSupport
import Testing

/// `hardtack keychain salvage`: exit statuses, the report, the refusals, the damaged store left as it
/// was, and PostgreSQL on either side.
@Suite struct SalvageCommandTests {
    private func storeWithItems(_ sandbox: CLISandbox, count: Int) async throws {
        for index in 0..<count {
            try await sandbox.addGeneric(service: "svc\(index)", account: "acct\(index)", secret: "SALVAGED-\(index)")
        }
    }

    @Test func aSoundStoreIsCopiedWholeAndExitsZero() async throws {
        let sandbox = CLISandbox()
        try await storeWithItems(sandbox, count: 5)
        let before = FileBytes.read(sandbox.store)
        let target = sandbox.directory.file("store/new.db")
        let result = try await sandbox.keychain(["salvage", "--to", target])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("recovered items: 5"))
        #expect(result.stdout.contains("lost items: 0"))
        #expect(!result.stdout.contains("SALVAGED-") && !result.stderr.contains("SALVAGED-"))
        #expect(FileBytes.read(sandbox.store) == before)
        let find = try await sandbox.run(["keychain", "--store", target, "find-generic-password", "-s", "svc3", "-a", "acct3", "-w"])
        #expect(find.stdout == "SALVAGED-3\n")
    }

    @Test func aLostItemExits65AndIsNamed() async throws {
        let sandbox = CLISandbox()
        try await storeWithItems(sandbox, count: 6)
        // One bit of the first item's secret: its cell is the last on the items' leaf page (cells fill a
        // page from its end), the secret's ciphertext its last column, just before the 8 checksum bytes.
        var bytes = FileBytes.read(sandbox.store)
        let leaf = try #require(
            stride(from: 4096, to: bytes.count, by: 4096).first { bytes[$0] == 0x0D && bytes[$0 + 4] == 6 },
            "no leaf page holds the six items")
        bytes[leaf + 4096 - 8 - 20] ^= 0x01
        try FileBytes.write(bytes, to: sandbox.store)
        let before = FileBytes.read(sandbox.store)
        let target = sandbox.directory.file("store/new.db")
        let result = try await sandbox.keychain(["salvage", "--to", target, "--json"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.contains("\"recovered\": 5"))
        #expect(result.stdout.contains("\"lost\": 1"))
        // The lost item is named by its class: its attributes are in the same ciphertext as its secret
        // (a joint row), so nothing of it decrypts, and no other item's name stands in for it.
        let lostItems = try #require(result.stdout.range(of: "\"lostItems\"")).upperBound
        let named = String(result.stdout[lostItems...])
        #expect(named.contains("\"class\": \"genericPassword\""), "\(result.stdout)")
        for index in 0..<6 { #expect(!named.contains("svc\(index)"), "\(result.stdout)") }
        #expect(!result.stdout.contains("SALVAGED-"), "a secret in the report")
        #expect(result.stderr.contains("1 item could not be recovered"))
        #expect(FileBytes.read(sandbox.store) == before)
        let verify = try await sandbox.run(["keychain", "--store", target, "verify"])
        #expect(verify.stdout.contains("sound items: 5"))
    }

    @Test func anExistingTargetOrTheStoreItselfIsRefused() async throws {
        let sandbox = CLISandbox()
        try await storeWithItems(sandbox, count: 1)
        let taken = try sandbox.privateFile("taken.db", "")
        let existing = try await sandbox.keychain(["salvage", "--to", taken])
        #expect(existing.status == 2)
        #expect(existing.stderr.contains("already exists"))
        #expect(FileBytes.read(taken).isEmpty)
        let itself = try await sandbox.keychain(["salvage", "--to", sandbox.store])
        #expect(itself.status == 2)
        #expect(itself.stderr.contains("the damaged store itself"))
    }

    @Test func aZeroByteStoreHasNothingToSalvageAndNoTargetIsMade() async throws {
        let sandbox = CLISandbox()
        try await storeWithItems(sandbox, count: 1)
        try FileBytes.write([], to: sandbox.store)
        let target = sandbox.directory.file("store/new.db")
        let result = try await sandbox.keychain(["salvage", "--to", target])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(FileBytes.read(sandbox.store).isEmpty)
    }

    @Test func aPostgreSQLStoreIsSalvagedRowByRowAndIntoAFile() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await sandbox.freshPostgreSQLDatabase()
        let store = ["keychain", "--store", uri, "--key-env", "PG_KEY"]
        let environment = ["PG_KEY": String(repeating: "ab", count: 32)]
        for index in 0..<4 {
            let add = try await sandbox.run(
                store + ["add-generic-password", "-s", "svc\(index)", "-a", "acct", "-w", "PG-SECRET-\(index)"],
                environment: environment)
            try #require(add.status == 0, "\(add.stderr)")
        }
        // One row's secret ciphertext changed on the server.
        let tamper = try await sandbox.runProcess(
            "/usr/bin/psql",
            [
                uri, "-qc",
                // The second row added (svc1); row ids come from a sequence, so not necessarily 2.
                "UPDATE hardtack.items SET data = set_byte(data, 30, get_byte(data, 30) # 1) "
                    + "WHERE id = (SELECT id FROM hardtack.items ORDER BY id OFFSET 1 LIMIT 1)",
            ])
        try #require(tamper.status == 0, "\(tamper.stderr)")
        let target = sandbox.directory.file("store/from-pg.db")
        let result = try await sandbox.run(store + ["salvage", "--to", target], environment: environment)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.contains("recovered items: 3"))
        // A joint row: nothing of the lost item decrypts, so it is named by its row and class only.
        #expect(result.stdout.contains("lost: row "))
        #expect(result.stdout.contains("genericPassword"), "\(result.stdout)")
        #expect(!result.stdout.contains("svc1"), "\(result.stdout)")
        #expect(!result.stdout.contains(password) && !result.stderr.contains(password))
        let find = try await sandbox.run(["keychain", "--store", target, "find-generic-password", "-s", "svc3", "-a", "acct", "-w"])
        #expect(find.stdout == "PG-SECRET-3\n")
        // And back into a new PostgreSQL store, which needs its own key named.
        let (other, _) = try await sandbox.freshPostgreSQLDatabase()
        let noKey = try await sandbox.run(["keychain", "--store", target, "salvage", "--to", other])
        #expect(noKey.status == 2)
        let back = try await sandbox.run(["keychain", "--store", target, "salvage", "--to", other, "--to-key-env", "PG_KEY"], environment: environment)
        #expect(back.status == 0, "\(back.stderr)")
        let read = try await sandbox.run(
            ["keychain", "--store", other, "--key-env", "PG_KEY", "find-generic-password", "-s", "svc0", "-a", "acct", "-w"],
            environment: environment)
        #expect(read.stdout == "PG-SECRET-0\n")
        // A sound PostgreSQL store (one rows digest per access group) comes back whole: exit 0.
        let whole = try await sandbox.run(
            ["keychain", "--store", other, "--key-env", "PG_KEY", "salvage", "--to", sandbox.directory.file("store/whole.db")],
            environment: environment)
        #expect(whole.status == 0, "\(whole.stdout) \(whole.stderr)")
        #expect(whole.stdout.contains("recovered items: 3"), "\(whole.stdout)")
    }
}

/// `verify` on a store too damaged to open: counted as salvage reads it, with the kind of damage.
@Suite struct VerifyDamageKindTests {
    @Test func aStoreThatCannotOpenIsCountedAsSalvageReadsIt() async throws {
        let sandbox = CLISandbox()
        for index in 0..<5 {
            try await sandbox.addGeneric(service: "svc\(index)", account: "acct", secret: "KIND-SECRET-\(index)")
        }
        // Page 1 (the schema) fails its checksum: SQLite cannot open the store at all.
        var bytes = FileBytes.read(sandbox.store)
        bytes[2000] ^= 0x01
        try FileBytes.write(bytes, to: sandbox.store)
        let text = try await sandbox.keychain(["verify"])
        #expect(text.status == 65, "\(text.stderr)")
        #expect(text.stdout.contains("sound items: 5"))
        #expect(text.stdout.contains("counted as salvage reads the store: the database could not read it through"))
        #expect(text.stdout.contains("damage: 1 page failing its checksum"))
        #expect(text.stderr.contains("salvage --to NEW"))
        let json = try await sandbox.keychain(["verify", "--json"])
        #expect(json.status == 65)
        #expect(json.stdout.contains("\"sound\": 5"))
        #expect(json.stdout.contains("\"countedBy\": \"salvage\""))
        #expect(json.stdout.contains("\"pages\": 1"))
        #expect(!json.stdout.contains("KIND-SECRET") && !text.stdout.contains("KIND-SECRET"))
    }

    @Test func aSoundStoreHasNoDamageAndADamagedOneSaysWhere() async throws {
        let sandbox = CLISandbox()
        for index in 0..<3 {
            try await sandbox.addGeneric(service: "svc\(index)", account: "acct", secret: "KIND-SECRET-\(index)")
        }
        let sound = try await sandbox.keychain(["verify", "--json"])
        #expect(sound.stdout.contains("\"rowsDigest\": false") && sound.stdout.contains("\"rows\": 0"))
        #expect(try await sandbox.keychain(["verify"]).stdout.contains("damage: none"))
        // One bit in the middle of the newest row's secret (the first cell from the page's start).
        var bytes = FileBytes.read(sandbox.store)
        let leaf = try #require(stride(from: 4096, to: bytes.count, by: 4096).first { bytes[$0] == 0x0D && bytes[$0 + 4] == 3 })
        let cell = leaf + (Int(bytes[leaf + 5]) << 8 | Int(bytes[leaf + 6]))
        bytes[cell + 150] ^= 0x01
        try FileBytes.write(bytes, to: sandbox.store)
        let damaged = try await sandbox.keychain(["verify"])
        #expect(damaged.status == 65)
        #expect(damaged.stdout.contains("sound items: 2"), "\(damaged.stdout)")
        #expect(damaged.stdout.contains("damage: 1 page failing its checksum, 1 row, the rows digest"))
        #expect(damaged.stdout.contains("damaged: row 3, genericPassword: its attributes do not decrypt"))
    }
}
