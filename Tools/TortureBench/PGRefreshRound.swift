import BenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One round of scenario 16: every account's access token has expired; `perAccount` `hardtack me`
/// processes per account start at once, and the faults planned for the round strike while they run.
struct PGRefreshRound {
    /// What strikes during a round.
    struct Faults {
        /// Processes to kill with SIGKILL, each after its delay (seconds from the round's start).
        var kills: [Double] = []
        /// When every client connection is cut (`pg_terminate_backend`), if it is.
        var cut: Double?
        /// When the server is stopped with `-m immediate` and started again, if it is.
        var restart: Double?

        /// Whether nothing strikes.
        var none: Bool { kills.isEmpty && cut == nil && restart == nil }
    }

    /// How a round went.
    struct Outcome {
        /// Every process of the round.
        var callers: [PGRefreshCaller] = []
        /// Processes still running at the round's bound (killed then).
        var stuck: [PGRefreshCaller] = []
        /// Kills done: the account, and when.
        var kills: [(account: Int, at: Date)] = []
        /// Whether the cut, and the restart, happened (and the restart worked).
        var cut = false
        var restarted = false
        var restartFailed = false
        /// Seconds the restart took (stop, pause, start).
        var restartSeconds = 0.0
    }

    let accounts: Int
    let perAccount: Int
    let faults: Faults
    /// Seconds a process may run before it counts as stuck.
    let bound: Double

    /// Runs the round.
    func run(
        start: (Int) throws -> PGRefreshCaller, server: PostgresServer, random: inout SeededGenerator
    ) -> Outcome {
        var outcome = Outcome()
        let order = (0..<accounts).flatMap { account in [Int](repeating: account, count: perAccount) }.shuffled(
            using: &random)
        let started = Date()
        for account in order {
            if let caller = try? start(account) { outcome.callers.append(caller) }
        }
        var kills = faults.kills.sorted()
        var cut = faults.cut
        var restart = faults.restart
        let deadline = started + bound
        while Date() < deadline {
            let elapsed = Date().timeIntervalSince(started)
            if let next = kills.first, elapsed >= next {
                kills.removeFirst()
                let running = outcome.callers.filter { !$0.poll() && $0.killedAt == nil }
                if !running.isEmpty {
                    let victim = running[Int.random(in: 0..<running.count, using: &random)]
                    victim.child.kill(SIGKILL)
                    victim.killedAt = Date()
                    outcome.kills.append((victim.account, victim.killedAt!))
                }
            }
            if let at = cut, elapsed >= at {
                cut = nil
                outcome.cut =
                    server.sql(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                            + "AND backend_type = 'client backend'") == nil
            }
            if let at = restart, elapsed >= at {
                restart = nil
                let began = Date()
                let stopped = server.crash()
                usleep(useconds_t(Int.random(in: 100...500, using: &random) * 1000))
                let running = stopped && server.restart()
                outcome.restarted = running
                outcome.restartFailed = !running
                outcome.restartSeconds = Date().timeIntervalSince(began)
            }
            let pending = outcome.callers.filter { !$0.poll() }
            if pending.isEmpty && kills.isEmpty && cut == nil && restart == nil { break }
            usleep(2000)
        }
        for caller in outcome.callers where !caller.poll() {
            outcome.stuck.append(caller)
            _ = caller.child.killAndReap()
            caller.ended = Date()
        }
        return outcome
    }
}
