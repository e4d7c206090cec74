import BenchSupport
import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 4: a writer process killed with SIGKILL at random moments while it adds, updates, renames
/// and deletes items, rotates the session's token pair, changes the store's key and rotates its master
/// key (every item re-sealed in one transaction); after each kill
/// the store is reopened and compared with the writer's durable log of acknowledged commits.
enum CrashLoopScenario {
    static let scenario = Scenario(
        number: 4, name: "crash",
        title: "kill -9 a writer at random moments, reopen after each: acknowledged commits lost 0, torn token "
            + "pairs 0, stores failing to open 0",
        run: run)

    /// What a writer's log says.
    private struct LogSummary {
        var acknowledged: [CrashOp] = []
        var pending: CrashOp?
        var errors: [String] = []
    }

    /// What the store held after a kill.
    private struct Observation {
        var model: CrashModel
        var torn: Bool
    }

    private struct Figures {
        var kills = 0
        var creationKills = 0
        var acknowledged = 0
        var pendingApplied = 0
        var pendingNotApplied = 0
        var lost = 0
        var torn = 0
        var failedToOpen = 0
        var writerErrors = 0
        var verifies = 0
        var unsoundVerifies = 0
        var rekeys = 0
        var keyRotations = 0
        var keyRotationKills = 0
        var rotations = 0
    }

    static func run(_ context: ScenarioContext) {
        let directory = context.directory("crash")
        let logs = makeDirectory(directory + "/logs")
        let path = makeDirectory(directory + "/store") + "/store.db"
        var model = CrashModel(key: "k:" + hex(context.random.bytes(32)))
        do {
            _ = try SQLiteSecureItemStore.open(
                at: path, keySource: CrashKeys.source(model.key)!, options: CrashKeys.options)
        } catch {
            context.fail("cannot create the store: \(error)")
            return
        }
        let cycles = context.mode.pick(230, 2200)
        let longestLife = context.mode.pick(120, 160)
        var figures = Figures()
        var problems: [String] = []
        let started = Date()
        for cycle in 0..<cycles {
            let creating = cycle % 10 == 9
            let storePath = creating ? makeDirectory(directory + "/fresh-\(cycle)") + "/store.db" : path
            var start = creating ? CrashModel(key: "file") : model
            let logPath = logs + "/\(cycle).log"
            let child: ChildProcess
            do {
                child = try ChildProcess.spawn(
                    context.bench,
                    [
                        "worker", "crash-writer", "--store", storePath, "--key", start.key, "--log", logPath,
                        "--seed", "\(context.seed &+ UInt64(cycle))", "--seconds", "60",
                    ], environment: context.sandboxEnvironment, stderr: .file(directory + "/writer.err"))
            } catch {
                context.fail("cannot start the writer: \(error)")
                return
            }
            let delay =
                creating
                ? Int.random(in: 1...40, using: &context.random)
                : Int.random(in: 2...longestLife, using: &context.random)
            usleep(useconds_t(delay * 1000))
            child.kill(SIGKILL)
            let termination = child.wait()
            if creating { figures.creationKills += 1 }
            figures.kills += 1
            if termination != .signaled(SIGKILL) {
                problems.append("cycle \(cycle): the writer ended by itself (\(termination.map { "\($0)" } ?? "?"))")
            }
            let log = parse(logPath)
            if !log.errors.isEmpty {
                figures.writerErrors += 1
                problems.append("cycle \(cycle): writer error: \(log.errors[0])")
            }
            for op in log.acknowledged { start = start.applying(op) }
            figures.acknowledged += log.acknowledged.count
            figures.rekeys += log.acknowledged.filter { if case .rekey = $0 { true } else { false } }.count
            figures.keyRotations += log.acknowledged.filter { if case .rotateKey = $0 { true } else { false } }.count
            if case .rotateKey = log.pending { figures.keyRotationKills += 1 }
            figures.rotations += log.acknowledged.filter { if case .rotate = $0 { true } else { false } }.count
            let expected = start
            let withPending = log.pending.map { expected.applying($0) }
            // Open with the acknowledged key, or the one a pending key change may have committed.
            var observed: Observation?
            var openError: String?
            for key in [expected.key] + (withPending.map { $0.key != expected.key ? [$0.key] : [] } ?? []) {
                do {
                    observed = try observe(storePath, key: key, verify: cycle % 20 == 0, figures: &figures)
                    break
                } catch {
                    openError = "\(error)"
                }
            }
            guard let observed else {
                figures.failedToOpen += 1
                problems.append("cycle \(cycle): the store does not open: \(openError ?? "?")")
                continue
            }
            if observed.torn {
                figures.torn += 1
                problems.append("cycle \(cycle): torn token pair")
            }
            if observed.model == expected {
                if log.pending != nil { figures.pendingNotApplied += 1 }
            } else if let withPending, observed.model == withPending {
                figures.pendingApplied += 1
            } else {
                figures.lost += 1
                problems.append("cycle \(cycle): " + describe(observed.model, expected: expected))
            }
            if !creating { model = observed.model }
        }
        let seconds = Date().timeIntervalSince(started)
        context.say(
            "\(figures.kills) kills (\(figures.creationKills) while creating a new store) in "
                + String(format: "%.0f s", seconds) + "; writer lives of 2–\(longestLife) ms")
        context.say(
            "acknowledged commits \(figures.acknowledged) (\(figures.rotations) token-pair rotations, "
                + "\(figures.rekeys) key changes, \(figures.keyRotations) master-key rotations, "
                + "\(figures.keyRotationKills) killed midway); at the kill, an unacknowledged write had committed "
                + "\(figures.pendingApplied) times and had not \(figures.pendingNotApplied) times")
        context.say(
            "acknowledged commits lost \(figures.lost), torn token pairs \(figures.torn), stores failing to open "
                + "\(figures.failedToOpen), writer errors \(figures.writerErrors), verify \(figures.verifies - figures.unsoundVerifies)/\(figures.verifies) sound"
        )
        for problem in problems.prefix(10) { context.say("  \(problem)") }
        context.check(figures.kills >= context.mode.pick(200, 2000), "only \(figures.kills) kills")
        context.check(figures.lost == 0, "\(figures.lost) kills lost acknowledged commits")
        context.check(figures.torn == 0, "\(figures.torn) torn token pairs")
        context.check(figures.failedToOpen == 0, "\(figures.failedToOpen) stores failed to open")
        context.check(figures.writerErrors == 0 && figures.unsoundVerifies == 0, "writer errors or unsound verify")
        context.check(problems.allSatisfy { !$0.contains("ended by itself") }, "a writer ended before its kill")
    }

    /// The acknowledged ops of a log, the op begun but not acknowledged, and any errors. A last line
    /// without its newline was being written at the kill: its op had not started.
    private static func parse(_ path: String) -> LogSummary {
        var text = String(decoding: readFile(path), as: UTF8.self)
        if !text.hasSuffix("\n"), let lastNewline = text.lastIndex(of: "\n") {
            text = String(text[...lastNewline])
        } else if !text.hasSuffix("\n") {
            text = ""
        }
        var summary = LogSummary()
        var begun: [Int: CrashOp] = [:]
        var lastBegun: Int?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let sequence = Int(fields[1]) else { continue }
            switch fields[0] {
            case "B":
                begun[sequence] = CrashOp(Array(fields.dropFirst(2)))
                lastBegun = sequence
            case "A":
                if let op = begun[sequence] { summary.acknowledged.append(op) }
                if lastBegun == sequence { lastBegun = nil }
            case "E":
                summary.errors.append(String(line))
            default:
                break
            }
        }
        summary.pending = lastBegun.flatMap { begun[$0] }
        return summary
    }

    /// Opens the store with `key` and reads its items and session.
    private static func observe(_ path: String, key: String, verify: Bool, figures: inout Figures) throws -> Observation
    {
        let source = key == "file" ? KeySource.keyFile(path: path + ".key") : CrashKeys.source(key)!
        let store = try SQLiteSecureItemStore.open(at: path, keySource: source, options: CrashKeys.options)
        var model = CrashModel(key: key)
        for item in try StoreReading.find(store, .genericPassword(service: CrashWriterWorker.service)) {
            model.items[item.account] = String(decoding: item.secret, as: UTF8.self)
        }
        var torn = false
        switch Result(catching: { () throws(AuthenticationError) in
            try waitFor { () async throws(AuthenticationError) in try await SecureStoreSessionRepository(store: store).load() }
        }) {
        case .success(let session?):
            let access = session.accessToken.value.revealedString() ?? ""
            let refresh = session.refreshToken.value.revealedString() ?? ""
            let generations = [access, refresh].map { $0.split(separator: ".").dropFirst().first.flatMap { Int($0) } }
            torn = generations[0] == nil || generations[0] != generations[1]
            model.session = CrashModel.Session(generation: generations[0] ?? -1, access: access, refresh: refresh)
        case .success(nil):
            break
        case .failure(let error):
            // "Incomplete" is the repository's word for one token without the other.
            guard case .storeUnavailable(let reason) = error, reason.contains("incomplete") else { throw error }
            torn = true
        }
        if verify {
            figures.verifies += 1
            if try !store.verify().isSound { figures.unsoundVerifies += 1 }
        }
        return Observation(model: model, torn: torn)
    }

    private static func describe(_ observed: CrashModel, expected: CrashModel) -> String {
        var differences: [String] = []
        for account in Set(observed.items.keys).union(expected.items.keys).sorted()
        where observed.items[account] != expected.items[account] {
            differences.append(
                "\(account): store \(observed.items[account].map { String($0.prefix(12)) } ?? "absent"), "
                    + "log \(expected.items[account].map { String($0.prefix(12)) } ?? "absent")")
        }
        if observed.session != expected.session {
            differences.append(
                "session generation: store \(observed.session?.generation ?? -1), log \(expected.session?.generation ?? -1)"
            )
        }
        if observed.key != expected.key { differences.append("key") }
        return "the store differs from the acknowledged commits: " + differences.prefix(3).joined(separator: "; ")
    }
}
