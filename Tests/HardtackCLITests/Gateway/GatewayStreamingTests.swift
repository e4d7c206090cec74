import Data
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `hardtack gateway` streaming its upstreams' answers, against the Authlib provider's `/api/stream`: a
/// large answer passes without the gateway's memory growing with it, and every early end (the upstream
/// cut or silent, the browser gone, the gateway stopping) is an answer cut short for the browser, a line
/// in the log and a gateway still up, never a hang.
extension GatewayScenarios {
    @Suite struct GatewayStreamingTests {
        let sandbox = CLISandbox()
        let browser = TestBrowser()
        let csrf = [("X-CSRF", "1")]

        /// A signed-in gateway in front of the provider's API.
        func signedIn(extra: [String] = []) async throws -> (TestProvider, RunningProcess, String) {
            let provider = try TestProvider()
            let (gateway, origin) = try await sandbox.startGateway(
                issuer: provider.issuer, routes: ["/api/=\(provider.issuer)/api/"], extra: extra)
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            return (provider, gateway, origin)
        }

        /// A 10 MiB answer streaming at 64 KiB a second, its first part read: 160 s, longer than any stop's grace.
        func slowStreamStarted(_ origin: String) async throws -> HTTPStreamedResponse {
            let response = try await browser.stream(
                origin + "/api/stream?bytes=10485760&chunk=65536&delay_ms=1000", headers: csrf)
            #expect(try await response.body.next() != nil)
            return response
        }

        /// The gateway's peak resident memory so far, in KiB (`VmHWM`).
        func peakResidentKiB(_ gateway: RunningProcess) throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(gateway.process.processIdentifier)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
            return try #require(Int(line.split(separator: " ")[1]))
        }

        /// Waits until the gateway has logged `text` (the test's time limit bounds the wait).
        func logged(_ text: String, by gateway: RunningProcess) async throws {
            while !String(decoding: FileBytes.read(gateway.errPath), as: UTF8.self).contains(text) {
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        @Test func aLargeAnswerStreamsThroughWithoutTheGatewaysMemoryGrowingWithIt() async throws {
            let (_, gateway, origin) = try await signedIn()
            defer { _ = sandbox.stopGatewayNow(gateway) }
            // One small stream first, so that what every stream needs once is in place before measuring.
            _ = try await browser.stream(origin + "/api/stream?bytes=1048576", headers: csrf).body.collect(upTo: .max)
            let before = try peakResidentKiB(gateway)
            let size = 50 << 20
            let response = try await browser.stream(origin + "/api/stream?bytes=\(size)", headers: csrf)
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "application/octet-stream")
            let read = await StreamedBody.drainOnThread(response.body)
            #expect(read.failure == nil && read.count == size && read.inOrder)
            let grown = try peakResidentKiB(gateway) - before
            #expect(grown < 16 << 10, "the gateway's peak memory grew by \(grown) KiB for a 50 MiB answer")
        }

        @Test func anUpstreamThatStopsMidBodyCutsTheAnswerShortAndIsLogged() async throws {
            let (_, gateway, origin) = try await signedIn()
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let response = try await browser.stream(
                origin + "/api/stream?bytes=4194304&cut_after=1048576", headers: csrf)
            let read = await StreamedBody.drain(response.body)
            #expect(read.count <= 1 << 20)
            #expect(read.failure == .transport("the connection was lost"))
            try await logged(#""stream":"upstream_lost""#, by: gateway)
            #expect(try await browser.get(origin + "/bff/user", headers: csrf).status == 200)
            let metrics = String(decoding: try await browser.get(origin + "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("hardtack_gateway_streams_cut_total 1"))
        }

        @Test func aBrowserThatGoesAwayStopsTheUpstreamTransfer() async throws {
            let (provider, gateway, origin) = try await signedIn()
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let dropped = try await provider.count("streams_dropped")
            let response = try await browser.stream(origin + "/api/stream?bytes=\(1 << 30)", headers: csrf)
            var read = 0
            while read < 1 << 20, let chunk = try await response.body.next() { read += chunk.count }
            response.body.cancel()
            // The provider's writes fail once the gateway closed its connection upstream.
            while try await provider.count("streams_dropped") == dropped { try await Task.sleep(for: .milliseconds(50)) }
            try await logged(#""stream":"browser_gone""#, by: gateway)
            #expect(try await browser.get(origin + "/bff/user", headers: csrf).status == 200)
        }

        @Test func anUpstreamSilentMidBodyIsCutAfterTheUpstreamTimeout() async throws {
            // 5 s for the provider's head, which a busy machine may delay past a second; the provider is then
            // silent for 20 s, so the cut can only be the timeout's.
            let (_, gateway, origin) = try await signedIn(extra: ["--upstream-timeout", "5"])
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let response = try await browser.stream(
                origin + "/api/stream?bytes=1048576&chunk=65536&delay_ms=20000", headers: csrf)
            #expect(response.status == 200)
            let read = await StreamedBody.drain(response.body)
            #expect(read.count == 65536)
            #expect(read.failure != nil)
            try await logged(#""stream":"upstream_timeout""#, by: gateway)
        }

        @Test func stoppingTheGatewayCutsAStreamStillRunningAfterItsGraceAndExits() async throws {
            let (provider, gateway, origin) = try await signedIn()
            let dropped = try await provider.count("streams_dropped")
            let response = try await slowStreamStarted(origin)
            kill(gateway.process.processIdentifier, SIGTERM)
            let read = await StreamedBody.drain(response.body)
            #expect(read.failure != nil, "the answer ends early rather than hanging")
            let result = await gateway.wait()
            #expect(result.status == 0, "\(result.stderr.suffix(300))")
            #expect(result.stderr.contains(#""stream":"gateway_stopping""#))
            while try await provider.count("streams_dropped") == dropped { try await Task.sleep(for: .milliseconds(50)) }
        }

        @Test func aSecondSignalDuringTheStopStopsAtOnceAndSaysWhatWasCut() async throws {
            let (_, gateway, origin) = try await signedIn()
            let response = try await slowStreamStarted(origin)
            let pid = gateway.process.processIdentifier
            kill(pid, SIGTERM)
            try await logged("stopping:", by: gateway)
            // Again every 2 s until it exits: the first after the stop's quiet second counts. Without that, the
            // stop would end at its 10 s grace, with status 0.
            let again = Task {
                while !Task.isCancelled, gateway.process.isRunning {
                    try await Task.sleep(for: .seconds(2))
                    if gateway.process.isRunning { kill(pid, SIGTERM) }
                }
            }
            let result = await gateway.wait()
            again.cancel()
            response.body.cancel()
            #expect(result.status == 130, "\(result.stderr.suffix(500))")
            #expect(result.stderr.contains("hardtack: stopped at once at a second signal, with 1 request in flight"))
            #expect(!result.stderr.contains(#""stream":"gateway_stopping""#), "cut by the exit, not by the grace's end")
        }

        @Test func oneSignalArrivingTwiceAtOnceStillStopsGracefully() async throws {
            // As when Ctrl-C reaches the gateway from the terminal and again from a wrapper passing it on.
            let (_, gateway, origin) = try await signedIn()
            let response = try await slowStreamStarted(origin)
            // Two signals of different kinds, which the kernel does not merge into one pending signal.
            kill(gateway.process.processIdentifier, SIGINT)
            kill(gateway.process.processIdentifier, SIGTERM)
            let read = await StreamedBody.drain(response.body)
            #expect(read.failure != nil, "the answer is cut at the grace's end")
            let result = await gateway.wait()
            #expect(result.status == 0, "\(result.stderr.suffix(500))")
            #expect(result.stderr.contains(#""stream":"gateway_stopping""#))
            #expect(!result.stderr.contains("stopped at once"))
        }
    }
}
