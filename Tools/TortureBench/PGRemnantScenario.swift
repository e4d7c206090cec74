import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore

/// Scenario 14: canary services, accounts, labels, comments, servers, paths and secrets written to a
/// PostgreSQL store, some updated and deleted, the key changed; then, after a `CHECKPOINT`, `pg_dump`
/// of the database and every file of the server's directory (data files, write-ahead log, server log)
/// are searched for the canaries in five encodings. A control canary stored in plaintext in a table of
/// its own proves that the search sees what is there.
enum PGRemnantScenario {
    /// The scenario, for the catalog.
    static let scenario = Scenario(
        number: 14, name: "pg-remnants",
        title: "PostgreSQL: canaries written, updated, deleted; pg_dump and every file of the server scanned: "
            + "plaintext hits 0",
        run: run)

    /// Runs the scenario.
    static func run(_ context: ScenarioContext) {
        guard let server = PostgresServer.start(context) else { return }
        defer { server.stop() }
        var canaries = CanarySet()
        var control = CanarySet()
        let tag = context.random.hex(8)
        var random = context.random
        func canary(_ kind: String) -> String {
            let value = "CANARY-\(kind)-\(tag)-\(random.hex(6))"
            canaries.add(kind, value)
            return value
        }
        let items = context.mode.pick(100, 1000)
        let key = context.random.bytes(32)
        do {
            let store = try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: .key(SecretBytes(key)))
            for index in 0..<items {
                if index % 2 == 0 {
                    try store.add(
                        .genericPassword(
                            service: canary("service"), account: canary("account"), label: canary("label"),
                            comment: canary("comment")), data: SecretBytes(utf8: canary("secret")))
                } else {
                    try store.add(
                        .internetPassword(
                            server: canary("server"), account: canary("account"), protocol: .https, port: 443,
                            path: "/" + canary("path"), label: canary("label")), data: SecretBytes(utf8: canary("secret")))
                }
            }
            let found = try store.find(.genericPassword(), limit: .all, returning: .attributes)
            for (index, item) in found.enumerated() {
                guard let attributes = item.attributes else { continue }
                let query = ItemAttributes.genericPassword(
                    service: attributes.string(.service), account: attributes.string(.account))
                switch index % 3 {
                case 0: try store.update(query, attributes: nil, data: SecretBytes(utf8: canary("updated-secret")))
                case 1: try store.update(query, attributes: .genericPassword(label: canary("new-label")), data: nil)
                default: try store.delete(query)
                }
            }
            try store.changeKey(to: .passphrase(SecretBytes(utf8: canary("passphrase"))))
            let controlValue = "CONTROL-\(tag)-" + context.random.hex(6)
            control.add("control", controlValue)
            let sql = try server.connect()
            try sql.execute("CREATE TABLE public.control (value text); INSERT INTO public.control VALUES ('\(controlValue)')")
            try sql.execute("CHECKPOINT")
            sql.close()
        } catch {
            context.fail("cannot write the canaries: \(error)")
            return
        }
        var hits: [String] = []
        let dump = server.dump()
        guard dump.error == nil, contains(dump.text, Array("hardtack.items".utf8)) else {
            context.fail("pg_dump failed: \(dump.error ?? "no items table in the dump")")
            return
        }
        hits += canaries.hitsInOnePass(in: dump.text).map { "pg_dump: \($0)" }
        let controlInDump = !control.hitsInOnePass(in: dump.text).isEmpty
        var files = 0
        var bytes = 0
        var controlInFiles = false
        for file in filesUnder(server.directory) {
            let content = readFile(file)
            files += 1
            bytes += content.count
            hits += canaries.hitsInOnePass(in: content).map { "\(file.dropFirst(server.directory.count)): \($0)" }
            controlInFiles = controlInFiles || !control.hitsInOnePass(in: content).isEmpty
        }
        context.say(
            "\(items) items with \(canaries.count) canaries (services, accounts, labels, comments, servers, paths, "
                + "secrets, updated values, a passphrase), a third updated, a third relabelled, a third deleted, key changed")
        context.say(
            "pg_dump (\(dump.text.count / 1024) KiB) and \(files) files of the server (\(bytes / 1024) KiB, after a "
                + "CHECKPOINT) in 5 encodings: plaintext hits \(hits.count); control canary found in the dump "
                + "\(controlInDump), in the files \(controlInFiles)")
        for hit in hits.prefix(10) { context.say("  hit: \(hit)") }
        context.check(hits.isEmpty, "\(hits.count) canaries found in plaintext")
        context.check(controlInDump && controlInFiles, "the control canary was not found: the search is blind")
    }
}
