#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// Waits cost next to nothing and are said: a `signin` kept waiting by a server that accepts the
/// connection and never answers.
@Suite struct WaitingTests {
    let sandbox = CLISandbox()

    @Test func waitingForASilentServerIdlesAndSaysSoAfterASecond() throws {
        let executable = try #require(HardtackExecutable.path)
        let server = try SilentServer()
        let input = try sandbox.privateFile("password", "wonderland\n")
        let errors = sandbox.directory.file("signin-errors")
        let child = try MeasuredProcess(
            executable,
            ["signin", "--server", server.url, "--username", "alice", "--password-stdin", "--store", sandbox.store],
            environment: ["HOME": sandbox.directory.file("home"), "PATH": "/usr/bin:/bin"], input: input,
            errorPath: errors)
        // Three seconds of waiting: URLSession's curl driver spun a core for all of it (about 2.4
        // CPU-seconds here); curl's own poll costs a few milliseconds.
        Thread.sleep(forTimeInterval: 3)
        let cpuSeconds = child.killAndMeasure()
        #expect(cpuSeconds < 0.4, "the wait cost \(cpuSeconds) CPU-seconds in 3 s")
        let said = String(decoding: FileBytes.read(errors), as: UTF8.self)
        #expect(said.contains("waiting for the server at 127.0.0.1 to answer"), "stderr: \(said)")
        #expect(said.components(separatedBy: "waiting for").count == 2, "said once: \(said)")
    }
}
