import BenchSupport
import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 15: client threads add and read items through handles of their own while a second
/// connection cuts their connections at random (`pg_terminate_backend`, and now and then
/// `pg_cancel_backend` of a running statement), picking a client by its `application_name`. Every call
/// must return within its bound, no acknowledged add may be lost, no add that failed (other than with
/// "may or may not have been saved") may have been saved, a client may fail no more calls than it was
/// cut (a cut between calls is repaired by the next one), and every call after the cutting stops
/// must succeed.
enum PGCutScenario {
    /// The scenario, for the catalog.
    static let scenario = Scenario(
        number: 15, name: "pg-cut",
        title: "PostgreSQL: connections cut at random under clients: acknowledged writes lost 0, hangs 0, clients "
            + "carry on",
        run: run)

    /// Runs the scenario.
    static func run(_ context: ScenarioContext) {
        guard let server = PostgresServer.start(context) else { return }
        defer { server.stop() }
        let key = context.random.bytes(32)
        let clients = context.mode.pick(4, 6)
        let seconds = context.mode.pick(15.0, 120.0)
        do {
            _ = try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: .key(SecretBytes(key)))
        } catch {
            context.fail("cannot create the store: \(error)")
            return
        }
        let deadline = Date().timeIntervalSince1970 + seconds
        // The cutter's last cut can land up to 0.3 s after the deadline (its pause) plus its query.
        let cutsEnd = deadline + 1
        let reports = Mutex<[Int: PGCutClient.Report]>([:])
        let done = DispatchGroup()
        for index in 0..<clients {
            let client = PGCutClient(uri: server.uri, key: key, index: index, seed: context.seed &+ UInt64(index))
            done.enter()
            Thread {
                let report = client.run(cutsEnd: cutsEnd, end: cutsEnd + 2)
                reports.withLock { $0[index] = report }
                done.leave()
            }.start()
        }
        var cutsOf = [Int](repeating: 0, count: clients)
        var terminations = 0
        var cancels = 0
        var cutterErrors: [String] = []
        let cutter: PostgreSQLConnection
        do {
            cutter = try server.connect()
        } catch {
            context.fail("cannot connect the cutter: \(error)")
            return
        }
        while Date().timeIntervalSince1970 < deadline {
            usleep(useconds_t(Int.random(in: 20...300, using: &context.random) * 1000))
            let cancel = context.random.chance(0.2)
            let function = cancel ? "pg_cancel_backend" : "pg_terminate_backend"
            let victim = Int.random(in: 0..<clients, using: &context.random)
            do {
                let result = try cutter.query(
                    "SELECT count(*)::bigint FROM (SELECT \(function)(pid) FROM pg_stat_activity WHERE "
                        + "application_name = $1" + (cancel ? " AND state = 'active'" : "") + ") c",
                    [.text("hardtack-cut-\(victim)")])
                if try result.int64(0, 0) > 0 {
                    cutsOf[victim] += 1
                    if cancel { cancels += 1 } else { terminations += 1 }
                }
            } catch {
                cutterErrors.append("\(error)")
            }
        }
        cutter.close()
        let finished = done.wait(timeout: .now() + 3 + PGCutClient.bound * 6) == .success
        context.check(finished, "a client did not finish: a hang")
        guard finished else { return }
        var total = PGCutClient.Report()
        var opened = 0
        var unexplained = 0
        for (index, report) in reports.withLock({ $0 }) {
            // A call fails only when its own connection was cut during it: never more failures than cuts.
            unexplained += max(0, report.failedCalls - cutsOf[index])
            total.failedCalls += report.failedCalls
            total.failedAfterCuts += report.failedAfterCuts
            total.callsAfterCuts += report.callsAfterCuts
            total.acknowledged.merge(report.acknowledged) { $1 }
            total.uncertain.merge(report.uncertain) { $1 }
            total.failed += report.failed
            total.calls += report.calls
            total.slowest = max(total.slowest, report.slowest)
            total.hangs += report.hangs
            total.wrongReads += report.wrongReads
            total.errors.merge(report.errors, uniquingKeysWith: +)
            if report.opened { opened += 1 }
        }
        var stored: [String: String] = [:]
        var sound = false
        do {
            let store = try PostgreSQLSecureItemStore.open(uri: server.uri, keySource: .key(SecretBytes(key)))
            for item in try store.find(.genericPassword(service: "cut"), limit: .all, returning: .all) {
                stored[item.attributes?.string(.account) ?? "?"] = item.data?.revealedString()
            }
            sound = try store.verify().isSound
        } catch .itemNotFound {
            sound = true
        } catch {
            context.fail("the store does not open or read after the run: \(error)")
        }
        let lost = total.acknowledged.filter { stored[$0.key] != $0.value }.count
        let phantom = total.failed.filter { stored[$0] != nil }.count
        let uncertainSaved = total.uncertain.filter { stored[$0.key] == $0.value }.count
        context.say(
            "\(clients) clients for \(Int(seconds)) s; \(terminations) connections terminated, \(cancels) statements "
                + "cancelled; \(total.calls) calls, slowest " + String(format: "%.2f s", total.slowest)
                + " (bound \(Int(PGCutClient.bound)) s), hangs \(total.hangs)")
        context.say(
            "acknowledged adds \(total.acknowledged.count): lost \(lost); failed adds \(total.failed.count): saved anyway "
                + "\(phantom); commit outcome unknown \(total.uncertain.count) (saved \(uncertainSaved)); wrong reads "
                + "\(total.wrongReads.count); verify sound \(sound)")
        context.say(
            "failed calls \(total.failedCalls), more than the cuts of their client \(unexplained); after the cutting "
                + "stopped, \(total.callsAfterCuts) calls, failed \(total.failedAfterCuts)")
        context.say(
            "errors: "
                + (total.errors.isEmpty ? "0" : total.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                    .joined(separator: ", ")))
        for problem in total.wrongReads.prefix(5) + cutterErrors.prefix(3) { context.say("  \(problem)") }
        context.check(opened == clients, "only \(opened) of \(clients) clients opened the store")
        context.check(terminations > 0, "no connection was cut")
        context.check(total.hangs == 0, "\(total.hangs) calls past their bound")
        context.check(lost == 0, "\(lost) acknowledged adds lost")
        context.check(phantom == 0, "\(phantom) failed adds were saved")
        context.check(total.wrongReads.isEmpty, "\(total.wrongReads.count) wrong reads")
        context.check(unexplained == 0, "\(unexplained) failed calls more than their client's cuts")
        context.check(
            total.failedAfterCuts == 0 && total.callsAfterCuts >= clients,
            "after the cutting stopped, \(total.failedAfterCuts) of \(total.callsAfterCuts) calls failed")
        context.check(sound, "the store does not verify sound")
    }
}
