import BenchSupport
import Data
import Domain
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

/// Scenario 13: a role with SQL access to the store's rows (but not its key) edits them through a
/// second connection: flipped bytes in ciphertexts and index cells, ciphertexts and cells swapped or
/// copied between rows, rows deleted, moved to another access group or class, renumbered. Every read
/// of a touched item, through a handle that was already open and through a new one, must be an
/// integrity error (never a wrong value, never "not found"), and `verify` must report damage. Each
/// edit is undone from a pristine copy of the rows before the next. Then the past of one row is put
/// back (``PGReplayProbe``): `verify` and a list must report damage; a lookup of that one item by a new
/// handle still returns it, the known limit of docs/postgresql.md, counted and reported, not failed.
enum PGTamperScenario {
    /// The scenario, for the catalog.
    static let scenario = Scenario(
        number: 13, name: "pg-tamper",
        title: "PostgreSQL: SQL-level flips, swaps, copies, deletes and group moves: every read of a touched item "
            + "an integrity error (wrong values 0, not found 0), verify reports damage",
        run: run)

    /// The store's schema (the default).
    private static let schema = "hardtack"

    /// Runs the scenario.
    static func run(_ context: ScenarioContext) {
        guard let server = PostgresServer.start(context) else { return }
        defer { server.stop() }
        let key = context.random.bytes(32)
        let source = KeySource.key(SecretBytes(key))
        let count = context.mode.pick(24, 60)
        let trials = context.mode.pick(200, 2000)
        var secrets: [String: String] = [:]
        var rows: [Int64: String] = [:]
        var otherRows: [Int64] = []
        let sql: PostgreSQLConnection
        let resident: PostgreSQLSecureItemStore
        do {
            sql = try server.connect()
            resident = try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: source)
            let other = try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: source, accessGroups: ["other"])
            for index in 0..<count {
                let account = "acct-\(index)"
                let secret = "secret-\(index)-" + context.random.hex(Int.random(in: 4...60, using: &context.random))
                try resident.add(
                    .genericPassword(service: "svc-\(index % 4)", account: account, label: "label-\(index)"),
                    data: SecretBytes(utf8: secret))
                secrets[account] = secret
                rows[try newRow(sql, known: Set(rows.keys).union(otherRows))] = account
            }
            for index in 0..<4 {
                try other.add(
                    .genericPassword(service: "svc-\(index)", account: "acct-\(index)"), data: SecretBytes(utf8: "o\(index)"))
                otherRows.append(try newRow(sql, known: Set(rows.keys).union(otherRows)))
            }
            try sql.execute("CREATE TABLE public.pristine AS SELECT * FROM \(schema).items")
        } catch {
            context.fail("cannot set up the store: \(error)")
            return
        }
        var tallies: [String: [PGReadOutcome: Int]] = [:]
        var outcomes: [PGReadOutcome: Int] = [:]
        var problems: [String] = []
        var verifyDetected = 0
        var restoreFailures = 0
        var noOps = 0
        var refused = 0
        let rowIDs = rows.keys.sorted()
        for trial in 0..<trials {
            let edit = randomEdit(&context.random, rows: rowIDs, otherRows: otherRows)
            let touched = edit.touchedRows.compactMap { rows[$0] }
            do {
                // The resident handle reads once first, so it has checked the rows before the edit.
                _ = try resident.find(.genericPassword(), limit: .all, returning: .attributes)
                try sql.execute(edit.sql(schema))
                let changed = try sql.query(
                    "SELECT (SELECT count(*) FROM (SELECT * FROM \(schema).items EXCEPT SELECT * FROM public.pristine) a)"
                        + " + (SELECT count(*) FROM (SELECT * FROM public.pristine EXCEPT SELECT * FROM \(schema).items) b)")
                if try changed.int64(0, 0) == 0 {
                    noOps += 1
                    continue
                }
            } catch let error as PostgreSQLError where error.sqlState == "23505" {
                // The unique constraint refused the edit: the table's own guard, nothing to read.
                _ = try? sql.execute("ROLLBACK")
                refused += 1
                continue
            } catch {
                context.fail("trial \(trial): \(edit.name): \(error)")
                break
            }
            var results: [(String, PGReadOutcome, String?)] = []
            let fresh: PostgreSQLSecureItemStore?
            do {
                fresh = try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: source)
            } catch .integrityFailure {
                fresh = nil
                results.append(("open", .integrity, nil))
            } catch {
                fresh = nil
                results.append(("open", .other, "\(error)"))
            }
            for (name, handle) in [("resident", resident), ("new", fresh)] {
                guard let handle else { continue }
                for account in touched {
                    let unique = ItemAttributes.genericPassword(service: service(of: account), account: account)
                    let (outcome, detail) = PGReadOutcome.classify(expected: [account: secrets[account]!]) {
                        () throws(SecureStoreError) in try handle.find(unique, limit: .one, returning: .all)
                    }
                    results.append(("\(name) unique", outcome, detail))
                }
                let (outcome, detail) = PGReadOutcome.classify(expected: secrets) { () throws(SecureStoreError) in
                    try handle.find(.genericPassword(), limit: .all, returning: .all)
                }
                results.append(("\(name) scan", outcome, detail))
            }
            if let fresh {
                do {
                    if try !fresh.verify().isSound { verifyDetected += 1 } else {
                        problems.append("trial \(trial): \(edit.name): verify says sound")
                    }
                } catch .integrityFailure {
                    verifyDetected += 1
                } catch {
                    problems.append("trial \(trial): \(edit.name): verify: \(error)")
                }
            }
            for (read, outcome, detail) in results {
                tallies[edit.name, default: [:]][outcome, default: 0] += 1
                outcomes[outcome, default: 0] += 1
                if outcome != .integrity {
                    problems.append("trial \(trial): \(edit.name): \(read) read: \(outcome.rawValue) \(detail ?? "")")
                }
            }
            if !restore(sql, resident: resident, secrets: secrets) {
                restoreFailures += 1
                problems.append("trial \(trial): the store is not sound after restoring the rows")
            }
        }
        let reads = outcomes.values.reduce(0, +)
        context.say(
            "\(count) items (and 4 of another access group); \(trials) edits (\(noOps) changed nothing, \(refused) "
                + "refused by the unique constraint), \(reads) reads of touched items")
        for name in tallies.keys.sorted() {
            let line = PGReadOutcome.allCases.compactMap { outcome in
                tallies[name]?[outcome].map { "\(outcome.rawValue) \($0)" }
            }
            context.say("  \(name): " + line.joined(separator: ", "))
        }
        context.say(
            "reads: integrity error \(outcomes[.integrity, default: 0]), wrong \(outcomes[.wrong, default: 0]), "
                + "not found \(outcomes[.notFound, default: 0]), unchanged \(outcomes[.unchanged, default: 0]), "
                + "other errors \(outcomes[.other, default: 0]); verify reported damage \(verifyDetected)/\(trials - noOps - refused)")
        let rollback = PGReplayProbe.run(
            sql, uri: server.uri, source: source, resident: resident, rows: rows, secrets: secrets, schema: schema,
            &context.random)
        context.say(
            "one row rolled back (an older copy of a row; a deleted row with its group's old digest): "
                + "\(rollback.caught) of \(rollback.trials) caught by verify and a list; known limit (not failed): a new "
                + "handle's lookup of the item put back returned it \(rollback.lookupsReturnedIt) times")
        for problem in (problems + rollback.missed).prefix(10) { context.say("  \(problem)") }
        for outcome in [PGReadOutcome.wrong, .notFound, .unchanged, .other] {
            context.check(outcomes[outcome, default: 0] == 0, "\(outcomes[outcome, default: 0]) reads: \(outcome.rawValue)")
        }
        let made = trials - noOps - refused
        context.check(verifyDetected == made, "verify reported damage after \(verifyDetected) of \(made) edits")
        context.check(restoreFailures == 0, "\(restoreFailures) restores left the store unsound")
        context.check(
            rollback.trials > 0 && rollback.caught == rollback.trials,
            "\(rollback.trials - rollback.caught) of \(rollback.trials) rolled-back rows not caught")
    }

    /// The service an account was stored under.
    static func service(of account: String) -> String {
        "svc-\((Int(account.dropFirst("acct-".count)) ?? 0) % 4)"
    }

    /// The row id that is not in `known`.
    private static func newRow(_ sql: PostgreSQLConnection, known: Set<Int64>) throws -> Int64 {
        let result = try sql.query("SELECT id FROM \(schema).items")
        for row in 0..<result.rowCount where !known.contains(try result.int64(row, 0)) {
            return try result.int64(row, 0)
        }
        throw SecureStoreError.itemNotFound
    }

    /// One edit at random, of the store's rows `rows`; `otherRows` belong to another access group.
    private static func randomEdit(_ random: inout SeededGenerator, rows: [Int64], otherRows: [Int64]) -> PGTamperEdit {
        let row = random.pick(rows)
        var other = random.pick(rows)
        while other == row { other = random.pick(rows) }
        let cells = PGTamperEdit.ciphertexts + PGTamperEdit.indexCells
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2:
            return .flip(
                row: row, column: random.pick(cells), offset: Int.random(in: 0..<4096, using: &random),
                mask: UInt8(1 << Int.random(in: 0..<8, using: &random)))
        case 3: return .swap(row: row, other: other, columns: [random.pick(PGTamperEdit.ciphertexts)])
        case 4: return .swap(row: row, other: other, columns: random.chance(0.5) ? ["attrs", "data"] : ["prim", "uniq"])
        case 5: return .copy(row: row, from: other, columns: [random.pick(["data", "uniq", "prim"])])
        case 6: return .delete(row: row)
        case 7: return .moveGroup(row: row, from: random.pick(otherRows))
        case 8: return .reclass(row: row)
        default: return .renumber(row: row, to: Int64.random(in: 1...Int64.max, using: &random))
        }
    }

    /// Puts the pristine rows back and checks that the resident handle reads every item right again.
    private static func restore(
        _ sql: PostgreSQLConnection, resident: PostgreSQLSecureItemStore, secrets: [String: String]
    ) -> Bool {
        do {
            try sql.execute(
                "BEGIN; DELETE FROM \(schema).items; INSERT INTO \(schema).items SELECT * FROM public.pristine; COMMIT")
            let (outcome, _) = PGReadOutcome.classify(expected: secrets) { () throws(SecureStoreError) in
                try resident.find(.genericPassword(), limit: .all, returning: .all)
            }
            return outcome == .unchanged
        } catch {
            return false
        }
    }
}
