import BenchSupport
import Data
import Domain
import Foundation
import SQLiteStore
import RawSQLite

/// Scenario 2: ciphertexts, nonces, whole rows and index cells moved between rows, between the access-
/// and refresh-token items of a session, and between two stores that share a key; and the past of one
/// row put back (an older ciphertext after an update, a deleted row with the rows digest from before
/// the delete). Every read of an item that was touched must fail with the integrity error: never
/// another item's value, never an older one, never "not found".
enum SwapScenario {
    static let scenario = Scenario(
        number: 2, name: "swaps",
        title: "ciphertext, nonce, row and index swaps (between rows, token items, stores sharing a key), "
            + "one row rolled back: integrity error every time",
        run: run)

    /// One row of the test stores, in insertion order (row ids 1…).
    private struct Row {
        let id: Int64
        let spec: ItemSpec?
        let group: String
        /// The session item it is, if any (`refresh-token`, `access-token`, `session`).
        let sessionAccount: String?
    }

    /// An edit to the store file and the rows it touches.
    private struct Edit {
        let name: String
        let apply: (RawDatabase, inout SeededGenerator, [Row]) throws -> [Int64]?
    }

    private struct Tally {
        var trials = 0
        var touchedReads = 0
        var integrity = 0
        var wrong: [String] = []
        var notFound = 0
        var otherErrors: [String] = []
        var untouchedWrong = 0
    }

    static func run(_ context: ScenarioContext) {
        let directory = context.directory("swaps")
        let key = context.random.bytes(32)
        let pathA = makeDirectory(directory + "/a") + "/store.db"
        let pathB = makeDirectory(directory + "/b") + "/store.db"
        let rowsA: [Row]
        do {
            rowsA = try build(pathA, key: key, tag: "A", context: &context.random)
            _ = try build(pathB, key: key, tag: "B", context: &context.random)
        } catch {
            context.fail("cannot build the stores: \(error)")
            return
        }
        let pristine = readFile(pathA)
        context.say(
            "two stores sharing one raw key, each with a session (refresh, access, record) and "
                + "\(rowsA.count - 3) items in two access groups")
        let perKind = context.mode.pick(25, 250)
        var overall = Tally()
        for edit in edits(otherStore: pathB) + rollbacks(path: pathA, key: key) {
            var tally = Tally()
            for _ in 0..<perKind {
                remove(pathA + "-wal")
                remove(pathA + "-shm")
                writeFile(pathA, pristine)
                let touched: [Int64]?
                do {
                    let raw = try RawDatabase(path: pathA)
                    touched = try edit.apply(raw, &context.random, rowsA)
                } catch {
                    context.fail("\(edit.name): cannot edit: \(error)")
                    break
                }
                guard let touched, !touched.isEmpty else { continue }
                tally.trials += 1
                audit(pathA, key: key, rows: rowsA, touched: Set(touched), into: &tally)
            }
            report(context, edit.name, tally)
            overall.trials += tally.trials
            overall.touchedReads += tally.touchedReads
            overall.integrity += tally.integrity
            overall.wrong += tally.wrong
            overall.notFound += tally.notFound
            overall.otherErrors += tally.otherErrors
            overall.untouchedWrong += tally.untouchedWrong
        }
        context.say(
            "all: \(overall.trials) edits, \(overall.touchedReads) reads of touched items → integrity error "
                + "\(overall.integrity), wrong value \(overall.wrong.count), not found \(overall.notFound), other "
                + "error \(overall.otherErrors.count); wrong values from untouched items \(overall.untouchedWrong)")
        cliCheck(context, path: pathA, pristine: pristine, key: key)
    }

    // MARK: Stores

    /// A session and eight items, added one at a time so their row ids are known.
    private static func build(
        _ path: String, key: [UInt8], tag: String, context random: inout SeededGenerator
    )
        throws -> [Row]
    {
        let store = try SQLiteSecureItemStore.open(
            at: path, keySource: .key(SecretBytes(key)), accessGroups: ["default", "other"])
        let repository = SecureStoreSessionRepository(store: store)
        let written = try session(tag: tag, random: &random)
        try waitFor { () async throws(AuthenticationError) in try await repository.replace(with: written) }
        var rows = [
            Row(id: 1, spec: nil, group: "default", sessionAccount: "refresh-token"),
            Row(id: 2, spec: nil, group: "default", sessionAccount: "access-token"),
            Row(id: 3, spec: nil, group: "default", sessionAccount: "session"),
        ]
        for index in 0..<8 {
            let spec = ItemSpec(
                kind: index >= 6 ? "internet" : "generic",
                primary: index >= 6 ? "login\(index % 2).example.com" : "service-\(index % 3)",
                account: "account-\(index)", label: "label \(index)", comment: nil,
                secret: Array("\(tag)-secret-\(index)-".utf8) + random.bytes(Int.random(in: 4...70, using: &random)))
            let group = index % 4 == 3 ? "other" : "default"
            try store.add(
                try spec.attributes.setting(.accessGroup, to: .string(group)), data: SecretBytes(spec.secret))
            rows.append(Row(id: Int64(4 + index), spec: spec, group: group, sessionAccount: nil))
        }
        try store.checkpoint()
        return rows
    }

    private static func session(tag: String, random: inout SeededGenerator) throws -> Session {
        let now = Date()
        return Session(
            accessToken: try AccessToken(
                value: SecretBytes(utf8: "access.\(tag).\(random.hex(32))"), issuedAt: now,
                expiresAt: now.addingTimeInterval(300)),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh.\(tag).\(random.hex(32))")),
            user: User(id: "u-\(tag)", name: "User \(tag)"), method: .password)
    }

    // MARK: Edits

    private static let rowColumns = ["class", "grp", "uniq", "prim", "attrs", "data"]

    private static func edits(otherStore: String) -> [Edit] {
        [
            Edit(name: "data ciphertext swapped between two rows") { raw, random, rows in
                let (a, b) = pair(rows, &random)
                return try swap(raw, ["data"], a, b)
            },
            Edit(name: "another row's ciphertext put in a joint row's empty attributes cell") { raw, random, rows in
                // The row then reads as a format-1 row, whose attributes must open under its own binding.
                let (a, b) = pair(rows, &random)
                try set(raw, "attrs", a, try raw.value("SELECT data FROM items WHERE id = ?", [.integer(b)]))
                return [a]
            },
            Edit(name: "nonce (first 24 bytes) swapped between two rows' data") { raw, random, rows in
                let (a, b) = pair(rows, &random)
                let first = try raw.blob("SELECT data FROM items WHERE id = ?", [.integer(a)])
                let second = try raw.blob("SELECT data FROM items WHERE id = ?", [.integer(b)])
                try set(raw, "data", a, .blob(Array(second.prefix(24)) + first.dropFirst(24)))
                try set(raw, "data", b, .blob(Array(first.prefix(24)) + second.dropFirst(24)))
                return [a, b]
            },
            Edit(name: "whole rows swapped (every column but the id)") { raw, random, rows in
                let (a, b) = pair(rows, &random)
                return try swap(raw, rowColumns, a, b)
            },
            Edit(name: "access-token and refresh-token data swapped") { raw, _, _ in
                return try swap(raw, ["data"], 1, 2)
            },
            Edit(name: "access-token and refresh-token rows swapped") { raw, _, _ in
                return try swap(raw, rowColumns, 1, 2)
            },
            Edit(name: "data and attributes of one row exchanged") { raw, random, rows in
                let row = random.pick(rows).id
                let data = try raw.value("SELECT data FROM items WHERE id = ?", [.integer(row)])
                let attrs = try raw.value("SELECT attrs FROM items WHERE id = ?", [.integer(row)])
                try set(raw, "data", row, attrs)
                try set(raw, "attrs", row, data)
                return [row]
            },
            Edit(name: "data copied from the same row of another store with the same key") { raw, random, rows in
                let row = random.pick(rows).id
                try copy(raw, from: otherStore, ["data"], row)
                return [row]
            },
            Edit(name: "whole row copied from another store with the same key") { raw, random, rows in
                let row = random.pick(rows).id
                try copy(raw, from: otherStore, rowColumns, row)
                return [row]
            },
            Edit(name: "access group index cells swapped") { raw, random, rows in
                let (a, b) = pair(rows.filter { $0.spec != nil }, &random) { $0.group != $1.group }
                return try swap(raw, ["grp"], a, b)
            },
            Edit(name: "unique-key index cells swapped") { raw, random, rows in
                let (a, b) = pair(rows, &random)
                return try swap(raw, ["uniq"], a, b)
            },
            Edit(name: "primary index cells swapped") { raw, random, rows in
                let (a, b) = pair(rows, &random) { ($0.spec?.primary ?? "session") != ($1.spec?.primary ?? "session") }
                return try swap(raw, ["prim"], a, b)
            },
            Edit(name: "class codes swapped between a generic and an internet password") { raw, random, rows in
                let (a, b) = pair(rows.filter { $0.spec != nil }, &random) { $0.spec?.kind != $1.spec?.kind }
                return try swap(raw, ["class"], a, b)
            },
        ]
    }

    /// The past of one row put back, every other row as it is: the store's own writes first (through a
    /// handle on `path`), then the row's older bytes (and the older rows digest) through SQL.
    private static func rollbacks(path: String, key: [UInt8]) -> [Edit] {
        let open = { () throws -> SQLiteSecureItemStore in
            try SQLiteSecureItemStore.open(
                at: path, keySource: .key(SecretBytes(key)), accessGroups: ["default", "other"])
        }
        return [
            Edit(name: "an older ciphertext of one row put back after an update") { raw, random, rows in
                let row = random.pick(rows.filter { $0.spec != nil })
                guard let spec = row.spec else { return nil }
                let old = try raw.query("SELECT attrs, data FROM items WHERE id = ?", [.integer(row.id)])[0]
                do {
                    let store = try open()
                    let query = try spec.uniqueQuery.setting(.accessGroup, to: .string(row.group))
                    try store.update(query, attributes: nil, data: SecretBytes(utf8: "newer-" + random.hex(8)))
                }
                try raw.query("UPDATE items SET attrs = ?, data = ? WHERE id = ?", old + [.integer(row.id)])
                return [row.id]
            },
            Edit(name: "a deleted row put back with the rows digest from before the delete") { raw, random, rows in
                let (a, b) = pair(rows.filter { $0.spec != nil }, &random)
                guard let deleted = rows.first(where: { $0.id == a }), let deletedSpec = deleted.spec,
                    let written = rows.first(where: { $0.id == b }), let writtenSpec = written.spec
                else { return nil }
                let columns = "id, class, grp, uniq, prim, attrs, data"
                let old = try raw.query("SELECT \(columns) FROM items WHERE id = ?", [.integer(a)])[0]
                let digest = try raw.value("SELECT value FROM rows_digest WHERE id = 1")
                do {
                    let store = try open()
                    try store.delete(try deletedSpec.uniqueQuery.setting(.accessGroup, to: .string(deleted.group)))
                    // Another row written in between, its value unchanged (a new ciphertext of it).
                    try store.update(
                        try writtenSpec.uniqueQuery.setting(.accessGroup, to: .string(written.group)),
                        attributes: nil, data: SecretBytes(writtenSpec.secret))
                }
                try raw.query("INSERT INTO items (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)", old)
                try raw.query("UPDATE rows_digest SET value = ? WHERE id = 1", [digest])
                return [a]
            },
        ]
    }

    /// Two distinct rows, optionally satisfying `condition`.
    private static func pair(
        _ rows: [Row], _ random: inout SeededGenerator, _ condition: (Row, Row) -> Bool = { _, _ in true }
    ) -> (Int64, Int64) {
        for _ in 0..<1000 {
            let a = random.pick(rows)
            let b = random.pick(rows)
            if a.id != b.id && condition(a, b) { return (a.id, b.id) }
        }
        return (rows[0].id, rows[1].id)
    }

    private static func set(_ raw: RawDatabase, _ column: String, _ id: Int64, _ value: RawDatabase.Value) throws {
        try raw.query("UPDATE items SET \(column) = ? WHERE id = ?", [value, .integer(id)])
    }

    /// Swaps `columns` between rows `a` and `b` in one transaction (a unique cell is parked first).
    /// - Returns: the two rows, or `nil` when their cells are equal (the swap would change nothing).
    @discardableResult
    private static func swap(_ raw: RawDatabase, _ columns: [String], _ a: Int64, _ b: Int64) throws -> [Int64]? {
        let list = columns.joined(separator: ", ")
        let first = try raw.query("SELECT \(list) FROM items WHERE id = ?", [.integer(a)])[0]
        let second = try raw.query("SELECT \(list) FROM items WHERE id = ?", [.integer(b)])[0]
        guard first != second else { return nil }
        try raw.query("BEGIN")
        if columns.contains("uniq") { try set(raw, "uniq", a, .blob(Array(repeating: 0xEE, count: 17))) }
        for (index, column) in columns.enumerated() { try set(raw, column, b, first[index]) }
        for (index, column) in columns.enumerated() { try set(raw, column, a, second[index]) }
        try raw.query("COMMIT")
        return [a, b]
    }

    /// Copies `columns` of row `id` from the store at `other` into the same row here.
    private static func copy(_ raw: RawDatabase, from other: String, _ columns: [String], _ id: Int64) throws {
        let values = try RawDatabase(path: other).query(
            "SELECT \(columns.joined(separator: ", ")) FROM items WHERE id = ?", [.integer(id)])[0]
        for (index, column) in columns.enumerated() { try set(raw, column, id, values[index]) }
    }

    // MARK: Reads

    /// Reads every item and the session, tallying what the touched and untouched ones gave.
    private static func audit(_ path: String, key: [UInt8], rows: [Row], touched: Set<Int64>, into tally: inout Tally) {
        let store: SQLiteSecureItemStore
        do {
            store = try SQLiteSecureItemStore.open(
                at: path, keySource: .key(SecretBytes(key)), accessGroups: ["default", "other"])
        } catch {
            // Opening reads no item; an edit of item rows must not stop the store from opening.
            tally.otherErrors.append("open failed: \(error)")
            return
        }
        for row in rows {
            let isTouched = touched.contains(row.id)
            var outcome: Result<String, SecureStoreError>
            if let spec = row.spec {
                do {
                    let query = try spec.uniqueQuery.setting(.accessGroup, to: .string(row.group))
                    let found = try store.find(query, limit: .one, returning: .all).first.flatMap(ItemSpec.init)
                    outcome = .success(found == spec ? "right" : "wrong")
                } catch {
                    outcome = .failure(error)
                }
            } else {
                outcome = sessionRead(store, account: row.sessionAccount ?? "")
            }
            switch (isTouched, outcome) {
            case (true, .failure(let error)):
                tally.touchedReads += 1
                if case .integrityFailure = error {
                    tally.integrity += 1
                } else if error == .itemNotFound {
                    tally.notFound += 1
                } else {
                    tally.otherErrors.append("row \(row.id): \(error)")
                }
            case (true, .success(let value)):
                tally.touchedReads += 1
                tally.wrong.append("row \(row.id) read \(value)")
            case (false, .success(let value)):
                if value != "right" { tally.untouchedWrong += 1 }
            case (false, .failure):
                break  // An untouched item may be refused too (a list that includes a touched row).
            }
        }
        // The session as the app reads it: never a session built from swapped items.
        if touched.contains(where: { $0 <= 3 }) {
            let repository = SecureStoreSessionRepository(store: store)
            tally.touchedReads += 1
            do {
                _ = try waitFor { () async throws(AuthenticationError) in try await repository.load() }
                tally.wrong.append("the session loaded")
            } catch .storeDamaged(let reason) where reason.contains("Integrity check failed") {
                tally.integrity += 1
            } catch {
                tally.otherErrors.append("session: \(error)")
            }
        }
    }

    /// Reads one session item by its account, as the repository stores it.
    private static func sessionRead(_ store: SQLiteSecureItemStore, account: String) -> Result<String, SecureStoreError>
    {
        do {
            let query = ItemAttributes.genericPassword(service: "hardtack.session", account: account)
            let found = try store.find(query, limit: .one, returning: .all)
            return .success(found.first?.data == nil ? "wrong" : "right")
        } catch {
            return .failure(error)
        }
    }

    private static func report(_ context: ScenarioContext, _ name: String, _ tally: Tally) {
        context.say(
            "\(name): \(tally.trials) edits, \(tally.touchedReads) reads of touched items → integrity "
                + "\(tally.integrity), wrong \(tally.wrong.count), not found \(tally.notFound), other "
                + "\(tally.otherErrors.count)")
        for line in (tally.wrong + tally.otherErrors).prefix(5) { context.say("  \(line)") }
        context.check(
            tally.integrity == tally.touchedReads && tally.untouchedWrong == 0,
            "\(name): \(tally.touchedReads - tally.integrity) reads of touched items were not integrity errors, "
                + "\(tally.untouchedWrong) untouched items read wrong")
    }

    /// The launch decision from the command line on a store whose two tokens were swapped: the store is
    /// damaged (exit 65, pointing at salvage), which is not "signed out".
    private static func cliCheck(_ context: ScenarioContext, path: String, pristine: [UInt8], key: [UInt8]) {
        remove(path + "-wal")
        remove(path + "-shm")
        writeFile(path, pristine)
        do {
            try swap(RawDatabase(path: path), ["data"], 1, 2)
        } catch {
            context.fail("cannot edit: \(error)")
            return
        }
        let result = context.hardtack(
            ["status", "--store", path, "--key-env", "TORTURE_KEY"], environment: ["TORTURE_KEY": hex(key)])
        context.say(
            "hardtack status with the two tokens swapped: exit \(result.status.map(String.init) ?? "none"), \(result.out.trimmingCharacters(in: .whitespacesAndNewlines))"
        )
        context.check(
            result.status == 65 && result.out.contains("salvage"),
            "hardtack status on swapped tokens exited \(String(describing: result.status)), not 65 pointing at salvage"
        )
    }
}
