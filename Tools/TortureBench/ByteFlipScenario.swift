import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore

/// Scenario 1: every byte of a small store's database file and write-ahead log flipped in turn, then
/// random bit flips in a larger store; after each, the store is reopened and every item read every
/// way. A wrong answer (a value never committed, an item said absent that exists) must never happen.
enum ByteFlipScenario {
    static let scenario = Scenario(
        number: 1, name: "flips",
        title: "byte flips over the database and its log, bit flips in a larger store: wrong values 0, crashes 0",
        run: run)

    /// Tallies of one sweep.
    private struct Tally {
        var trials = 0
        var harmless = 0
        var detected: [String: Int] = [:]
        var reverted: [String: Int] = [:]
        var wrong: [String] = []
        var incidents: [TrialRunner.Incident] = []

        mutating func record(_ index: Int, _ outcome: Substring) {
            trials += 1
            switch outcome.first {
            case "H": harmless += 1
            case "D": detected[String(outcome.dropFirst(2)), default: 0] += 1
            case "R": reverted[String(outcome.dropFirst(2)), default: 0] += 1
            default: wrong.append("at \(index): \(outcome)")
            }
        }

        var detectedCount: Int { detected.values.reduce(0, +) }
        var revertedCount: Int { reverted.values.reduce(0, +) }

        var crashes: Int { incidents.filter { !$0.what.hasPrefix("hung") }.count }
        var hangs: Int { incidents.filter { $0.what.hasPrefix("hung") }.count }

        func breakdown() -> String {
            detected.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
    }

    static func run(_ context: ScenarioContext) {
        let small = prepareSmallStore(context)
        let dbSize = readFile(small + "/pristine.db").count
        let walSize = readFile(small + "/pristine.wal").count
        context.say(
            "small store: 5 items, raw 32-byte key; database \(dbSize) bytes, log \(walSize) bytes (2 commits after a checkpoint)"
        )

        var db = sweep(context, directory: small, kind: "db", count: dbSize, log: false)
        report(context, "database file: every byte XORed with a random nonzero mask", &db)

        var wal = sweep(context, directory: small, kind: "wal", count: walSize, log: true)
        report(context, "write-ahead log: every byte XORed with a random nonzero mask", &wal)

        let itemCount = context.mode.pick(200, 1000)
        let trials = context.mode.pick(400, 4000)
        let large = prepareLargeStore(context, items: itemCount)
        let largeDB = readFile(large + "/pristine.db").count
        let largeWAL = readFile(large + "/pristine.wal").count
        context.say(
            "large store: \(itemCount + 1) items; database \(largeDB) bytes, log \(largeWAL) bytes (1 commit of 20 updates)"
        )
        var bits = sweep(context, directory: large, kind: "bits", count: trials, log: true, bits: 8)
        report(context, "random bit flips (1 to 8 per trial, anywhere in the database or log)", &bits)

        SalvageSweep.run(context, small: small, smallSize: dbSize, large: large, largeSize: largeDB)
    }

    private static func sweep(
        _ context: ScenarioContext, directory: String, kind: String, count: Int, log: Bool, bits: Int = 1
    ) -> Tally {
        var tally = Tally()
        let started = Date()
        let runner = TrialRunner(
            context: context, worker: "flips",
            arguments: [
                "--dir", directory, "--kind", kind, "--log", log ? "yes" : "no", "--bits", "\(bits)", "--seed",
                "\(context.seed)",
            ],
            trialTimeout: 20)
        tally.incidents = runner.run(0..<count) { index, outcome in tally.record(index, outcome) }
        context.say(
            String(
                format: "  (%d trials in %.1f s)", tally.trials + tally.incidents.count,
                Date().timeIntervalSince(started)))
        return tally
    }

    private static func report(_ context: ScenarioContext, _ what: String, _ tally: inout Tally) {
        context.say("\(what): \(tally.trials + tally.incidents.count) trials")
        context.say(
            "  harmless \(tally.harmless), detected \(tally.detectedCount), reverted to an earlier commit "
                + "\(tally.revertedCount), wrong values \(tally.wrong.count), crashes \(tally.crashes), hangs \(tally.hangs)"
        )
        if tally.detectedCount > 0 { context.say("  detected as: \(tally.breakdown())") }
        if tally.revertedCount > 0 {
            let states = tally.reverted.sorted { $0.key < $1.key }.map { "to commit \($0.key): \($0.value)" }
            context.say(
                "  reverted (the log's damaged tail dropped, as after a power cut): \(states.joined(separator: ", "))")
        }
        for wrong in tally.wrong.prefix(10) { context.say("  wrong: \(wrong)") }
        for incident in tally.incidents.prefix(10) { context.say("  trial \(incident.index): \(incident.what)") }
        context.check(tally.wrong.isEmpty, "\(what): \(tally.wrong.count) wrong answers")
        // Damage must read as damage: not as a wrong key, a database failure or anything else.
        let misnamed = tally.detected.filter { !$0.key.hasSuffix("integrity") }.values.reduce(0, +)
        context.check(misnamed == 0, "\(what): \(misnamed) damaged files reported as something other than damage")
        context.check(tally.incidents.isEmpty, "\(what): \(tally.crashes) crashes, \(tally.hangs) hangs")
    }

    // MARK: Stores

    private static func item(_ context: ScenarioContext, _ index: Int, kind: String = "generic") -> ItemSpec {
        ItemSpec(
            kind: kind, primary: kind == "internet" ? "login.example.com" : "service-\(index % 3).example",
            account: "account-\(index)", label: "label \(index)", comment: index % 2 == 0 ? "comment \(index)" : nil,
            secret: context.random.bytes(Int.random(in: 8...100, using: &context.random)))
    }

    /// A store of 4 items checkpointed into the database file, then 2 commits left in the log.
    private static func prepareSmallStore(_ context: ScenarioContext) -> String {
        let directory = context.directory("flips-small")
        let key = context.random.bytes(32)
        writeFile(directory + "/key.hex", Array(hex(key).utf8))
        var state = (0..<3).map { item(context, $0) } + [item(context, 3, kind: "internet")]
        var states: [[ItemSpec]] = []
        do {
            let store = try SQLiteSecureItemStore.open(
                at: directory + "/setup/store.db", keySource: .key(SecretBytes(key)))
            for spec in state { try store.add(spec.attributes, data: SecretBytes(spec.secret)) }
            try store.checkpoint()
            writeFile(directory + "/pristine.db", readFile(directory + "/setup/store.db"))
            states.append(state.sorted())
            state[0].secret = context.random.bytes(40)
            try store.update(state[0].uniqueQuery, attributes: nil, data: SecretBytes(state[0].secret))
            states.append(state.sorted())
            let added = item(context, 4)
            try store.add(added.attributes, data: SecretBytes(added.secret))
            state.append(added)
            states.append(state.sorted())
            writeFile(directory + "/pristine.wal", readFile(directory + "/setup/store.db-wal"))
        } catch {
            context.fail("cannot prepare the small store: \(error)")
        }
        writeStates(directory, states)
        return directory
    }

    /// A store of `items` items (and one internet password) in the database file, then one commit of
    /// 20 updates in the log.
    private static func prepareLargeStore(_ context: ScenarioContext, items: Int) -> String {
        let directory = context.directory("flips-large")
        let key = context.random.bytes(32)
        writeFile(directory + "/key.hex", Array(hex(key).utf8))
        var state = (0..<items).map { item(context, $0) } + [item(context, items, kind: "internet")]
        var states: [[ItemSpec]] = []
        do {
            let store = try SQLiteSecureItemStore.open(
                at: directory + "/setup/store.db", keySource: .key(SecretBytes(key)),
                options: StoreOptions(durability: .normal))
            try store.transaction { transaction in
                for spec in state { try transaction.add(spec.attributes, data: SecretBytes(spec.secret)) }
            }
            try store.checkpoint()
            writeFile(directory + "/pristine.db", readFile(directory + "/setup/store.db"))
            states.append(state.sorted())
            var changed = state
            for index in 0..<min(20, items) { changed[index * (items / 20)].secret = context.random.bytes(33) }
            try store.transaction { transaction in
                for index in 0..<min(20, items) {
                    let spec = changed[index * (items / 20)]
                    _ = try transaction.update(spec.uniqueQuery, attributes: nil, data: SecretBytes(spec.secret))
                }
            }
            state = changed
            states.append(state.sorted())
            writeFile(directory + "/pristine.wal", readFile(directory + "/setup/store.db-wal"))
        } catch {
            context.fail("cannot prepare the large store: \(error)")
        }
        writeStates(directory, states)
        return directory
    }

    private static func writeStates(_ directory: String, _ states: [[ItemSpec]]) {
        let data = (try? JSONEncoder().encode(states)) ?? Data()
        writeFile(directory + "/states.json", Array(data))
    }
}
