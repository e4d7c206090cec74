#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import Testing

/// A server command stops, cleanly, on SIGTERM or SIGINT sent as soon as the test reads its ready line (within
/// the 20 ms the test looks for it): the signals are caught before the ready line, so none is lost. (With a
/// Dispatch signal source registered as the wait began, one sent on the ready line could land between the
/// signal's being ignored and the source's registration: a gateway in the suite ran on after its SIGTERM,
/// and its test waited for ever. That window is a few milliseconds at most, so this test guards the
/// ordering rather than reproducing the race on every run.)
@Suite(.timeLimit(.minutes(3))) struct ServerSignalTests {
    let sandbox = CLISandbox()

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalSentOnTheReadyLineStopsTheServer(_ signalNumber: Int32) async throws {
        for _ in 0..<5 {
            let (server, _) = try await sandbox.startServer()
            let pid = server.process.processIdentifier
            kill(pid, signalNumber)
            // A lost signal would leave it serving: killed after 60 s, only against a hang, it fails below.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(60))
                kill(pid, SIGKILL)
            }
            let result = await server.wait()
            watchdog.cancel()
            try #require(result.status == 0, "signal \(signalNumber): \(result.status) \(result.stderr.suffix(300))")
        }
    }
}
