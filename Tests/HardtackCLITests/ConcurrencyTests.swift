import Foundation
import Testing

/// Two processes writing one store at once lose nothing.
@Suite struct ConcurrencyTests {
    @Test func twoWriterProcessesLoseNothing() async throws {
        let sandbox = CLISandbox()
        let executable = try #require(HardtackExecutable.path)
        // Each writer is one shell running 40 adds of its own items and 40 updates of a shared one, all
        // against a store that does not exist yet, so the two also race to create it.
        let script = """
            i=0
            while [ $i -lt 40 ]; do
              "$0" keychain --store "$1" add-generic-password -s load -a "$2-$i" -w "secret-$2-$i" || exit 10
              "$0" keychain --store "$1" add-generic-password -s shared -a both -w "$2-$i" -U || exit 11
              i=$((i + 1))
            done
            """
        let writers = try ["left", "right"].map { name in
            try sandbox.launch("/bin/sh", ["-c", script, executable, sandbox.store, name])
        }
        let results = await writers.waitAll()
        for result in results { #expect(result.status == 0, "\(result.stderr)") }

        let dump = try await sandbox.keychain(["dump", "--json"])
        #expect(dump.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let items = try #require(document["items"] as? [[String: Any]])
        let accounts = items.compactMap { ($0["attributes"] as? [String: Any])?["account"] as? String }
        let expected = Set(["left", "right"].flatMap { name in (0..<40).map { "\(name)-\($0)" } } + ["both"])
        #expect(accounts.count == 81)
        #expect(Set(accounts) == expected)

        let shared = try await sandbox.keychain(["find-generic-password", "-s", "shared", "-w"]).stdout
        #expect(shared == "left-39\n" || shared == "right-39\n")
        #expect(try await sandbox.keychain(["find-generic-password", "-a", "left-17", "-w"]).stdout == "secret-left-17\n")
        #expect(try await sandbox.keychain(["find-generic-password", "-a", "right-39", "-w"]).stdout == "secret-right-39\n")
        #expect(try await sandbox.keychain(["verify"]).status == 0)
    }

    @Test func processesCreatingOneStoreAtOnceAllSucceed() async throws {
        let sandbox = CLISandbox()
        let executable = try #require(HardtackExecutable.path)
        // The first use of a store switches it to WAL mode, which SQLite answers with "busy" at once while
        // another process does the same; several rounds make that race likely to show.
        for round in 0..<24 {
            let store = sandbox.directory.file("round\(round)/keychain.db")
            let writers = try ["a", "b", "c"].map { account in
                try sandbox.launch(
                    executable, ["keychain", "--store", store, "add-generic-password", "-s", "s", "-a", account, "-w", "x"])
            }
            for result in await writers.waitAll() { #expect(result.status == 0, "round \(round): \(result.stderr)") }
            let dump = try await sandbox.run(["keychain", "--store", store, "dump"])
            #expect(dump.stdout.components(separatedBy: "\"account\"").count - 1 == 3, "round \(round)")
        }
    }
}
