import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 11: writer processes replace token pairs in transactions on a PostgreSQL store and are
/// killed with SIGKILL at random moments, while the server itself is now and then stopped with
/// `pg_ctl stop -m immediate` under load and started again. After each kill the killed writer's pair
/// is read back; at the end every acknowledged commit's log item is looked for, and the store is
/// opened anew and verified.
enum PGCrashScenario {
    /// The scenario, for the catalog.
    static let scenario = Scenario(
        number: 11, name: "pg-crash",
        title: "PostgreSQL: kill -9 writers at random and stop the server with -m immediate under load: "
            + "acknowledged commits lost 0, torn pairs 0, the store opens and verifies sound",
        run: run)

    /// One writer slot: its current process and what it acknowledged over all its lives.
    private final class Slot {
        /// The slot's number (its pair's service).
        let index: Int
        /// The writer of its current life.
        var child: ChildProcess?
        /// That writer's standard output.
        var reader: LineReader?
        /// Writers started so far; each life numbers its writes from `lives × 1,000,000`.
        var lives = 0
        /// Every acknowledged sequence number, over all lives.
        var acknowledged: [Int] = []
        /// The highest of them.
        var highest = 0
        /// Failed writes by kind.
        var errors: [String: Int] = [:]

        /// An empty slot number `index`.
        init(index: Int) { self.index = index }

        /// Reads every line the writer has printed so far (or until it ended).
        func drain(wait: Double) {
            guard let reader else { return }
            while case .line(let line) = reader.next(timeout: wait) {
                let fields = line.split(separator: " ")
                guard fields.count >= 2, let sequence = Int(fields[1]) else { continue }
                if fields[0] == "A" {
                    acknowledged.append(sequence)
                    highest = max(highest, sequence)
                } else if fields[0] == "E" {
                    errors[fields.dropFirst(2).joined(separator: " "), default: 0] += 1
                }
            }
        }
    }

    /// Runs the scenario.
    static func run(_ context: ScenarioContext) {
        guard let server = PostgresServer.start(context) else { return }
        defer { server.stop() }
        let key = context.random.bytes(32)
        let source = KeySource.key(SecretBytes(key))
        let resident: PostgreSQLSecureItemStore
        do {
            resident = try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: source)
        } catch {
            context.fail("cannot create the store: \(error)")
            return
        }
        let kills = context.mode.pick(150, 1200)
        let crashes = context.mode.pick(3, 20)
        let crashAt = Set((0..<crashes).map { (kills / (crashes + 1)) * ($0 + 1) })
        let slots = (0..<context.mode.pick(2, 3)).map(Slot.init)
        var torn = 0
        var lostAtKill = 0
        var unreadable = 0
        var restartFailures = 0
        var problems: [String] = []
        let started = Date()
        func spawn(_ slot: Slot) {
            slot.lives += 1
            do {
                let child = try ChildProcess.spawn(
                    context.bench,
                    [
                        "worker", "pg-writer", "--key", hex(key), "--slot", "\(slot.index)",
                        "--base", "\(slot.lives * 1_000_000)", "--seed", "\(context.seed &+ UInt64(slot.lives * 8 + slot.index))",
                    ], environment: context.sandboxEnvironment.merging(["HARDTACK_TORTURE_PG": server.uri]) { $1 },
                    stdout: .pipe, stderr: .file(context.work + "/pg-writer.err"))
                slot.child = child
                slot.reader = LineReader(child.stdoutPipe!)
            } catch {
                problems.append("cannot start a writer: \(error)")
            }
        }
        for slot in slots { spawn(slot) }
        for kill in 0..<kills {
            usleep(useconds_t(Int.random(in: 10...context.mode.pick(250, 300), using: &context.random) * 1000))
            if crashAt.contains(kill) {
                // Under load: every writer is running. Stop the server as a crash would, then start it.
                let crashed = server.crash()
                usleep(useconds_t(Int.random(in: 50...500, using: &context.random) * 1000))
                if !crashed || !server.restart() {
                    restartFailures += 1
                    problems.append("kill \(kill): the server did not stop or start again")
                }
            }
            let slot = context.random.pick(slots)
            slot.child?.kill(SIGKILL)
            if let termination = slot.child?.wait(), termination != .signaled(SIGKILL) {
                problems.append("kill \(kill): a writer ended by itself (\(termination))")
            }
            slot.drain(wait: 0.5)
            switch readPair(resident, slot: slot.index) {
            case .success(let pair?):
                if pair.access != pair.refresh {
                    torn += 1
                    problems.append("kill \(kill): torn pair \(pair.access)/\(pair.refresh)")
                }
                if pair.access < slot.highest {
                    lostAtKill += 1
                    problems.append("kill \(kill): slot \(slot.index) holds \(pair.access), acknowledged \(slot.highest)")
                }
            case .success(nil):
                if slot.highest > 0 { lostAtKill += 1 }
            case .failure(let error):
                unreadable += 1
                problems.append("kill \(kill): the pair cannot be read: \(error)")
            }
            spawn(slot)
            for other in slots where other !== slot { other.drain(wait: 0.001) }
        }
        for slot in slots {
            slot.child?.kill(SIGKILL)
            slot.child?.wait()
            slot.drain(wait: 0.5)
        }
        let seconds = Date().timeIntervalSince(started)
        let acknowledged = slots.map(\.acknowledged.count).reduce(0, +)
        var lost = 0
        var soundVerify = false
        var pairsWithoutLog = 0
        do {
            let fresh = try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: source)
            let logged = Set(
                try fresh.find(.genericPassword(service: PGCrashWriterWorker.logService), limit: .all, returning: .attributes)
                    .compactMap { $0.attributes?.string(.account) })
            for slot in slots {
                lost += slot.acknowledged.filter { !logged.contains("s\(slot.index)-\($0)") }.count
                if case .success(let pair?) = readPair(fresh, slot: slot.index),
                    !logged.contains("s\(slot.index)-\(pair.access)")
                {
                    pairsWithoutLog += 1
                }
            }
            soundVerify = try fresh.verify().isSound
        } catch {
            context.fail("the store does not open or read after the run: \(error)")
        }
        var errors: [String: Int] = [:]
        for slot in slots { errors.merge(slot.errors, uniquingKeysWith: +) }
        context.say(
            "\(kills) kills of \(slots.count) concurrent writers, \(crashes) immediate server stops under load, in "
                + String(format: "%.0f s", seconds))
        context.say(
            "acknowledged commits \(acknowledged); lost \(lost) (checked at the end), slots behind their last "
                + "acknowledged pair at a kill \(lostAtKill), torn pairs \(torn), pairs without their log item "
                + "\(pairsWithoutLog), unreadable after a kill \(unreadable), verify sound \(soundVerify)")
        context.say(
            "writes that failed (server down, connection lost; not acknowledged, so not counted): "
                + (errors.isEmpty ? "0" : errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        for problem in problems.prefix(10) { context.say("  \(problem)") }
        context.check(acknowledged > kills, "only \(acknowledged) acknowledged commits")
        context.check(lost == 0 && lostAtKill == 0, "acknowledged commits lost: \(lost), at kills \(lostAtKill)")
        context.check(torn == 0 && pairsWithoutLog == 0, "torn pairs \(torn), pairs without their log item \(pairsWithoutLog)")
        context.check(unreadable == 0, "\(unreadable) pairs could not be read after a kill")
        context.check(restartFailures == 0, "\(restartFailures) server stops or restarts failed")
        context.check(soundVerify, "the store does not verify sound")
        context.check(!problems.contains { $0.contains("by itself") || $0.contains("cannot start") }, "a writer misbehaved")
    }

    /// A slot's pair as the sequence numbers in its two tokens (`nil` when it has none yet).
    private static func readPair(_ store: PostgreSQLSecureItemStore, slot: Int) -> Result<(access: Int, refresh: Int)?, SecureStoreError> {
        Result { () throws(SecureStoreError) -> (access: Int, refresh: Int)? in
            let items = try store.find(
                .genericPassword(service: PGCrashWriterWorker.pairService(slot)), limit: .all, returning: .all)
            var tokens: [String: Int] = [:]
            for item in items {
                tokens[item.attributes?.string(.account) ?? "?"] =
                    PGCrashWriterWorker.sequence(in: item.data?.revealedString() ?? "") ?? -1
            }
            return (tokens["access"] ?? -2, tokens["refresh"] ?? -3)
        }.flatMapError { error in
            if case .itemNotFound = error { return .success(nil) }
            return .failure(error)
        }
    }
}
