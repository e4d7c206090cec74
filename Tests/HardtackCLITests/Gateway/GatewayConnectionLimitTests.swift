#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// `hardtack gateway`'s bounds on browser connections, over real sockets: `--max-connections` and
/// `--connection-timeout` hold, a loop whose connections all ended together at its limit accepts again
/// (a client that filled it and let its connections go quiet would otherwise have silenced it for good), and
/// the descriptor limit is raised to fit the connections.
extension GatewayScenarios {
    @Suite struct GatewayConnectionLimitTests {
        let sandbox = CLISandbox()

        /// A kept request (HTTP/1.1, no `Connection: close`) to `/healthz`.
        static let healthz = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

        @Test func aGatewayAtItsConnectionLimitAcceptsAgainOnceItsConnectionsAllEndTogether() async throws {
            let provider = try TestProvider()
            // One loop, four connections at once, three seconds of quiet before a connection is dropped.
            let (gateway, origin) = try await sandbox.startGateway(
                issuer: provider.issuer, routes: [],
                extra: ["--threads", "1", "--max-connections", "4", "--connection-timeout", "3"])
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let port = try #require(origin.split(separator: ":").last.flatMap { UInt16($0) })
            // Four fill the limit and are answered; then they are kept, quiet, until the timeout ends them
            // together (their deadlines are milliseconds apart).
            let first = (0..<4).map { _ in RawSocket.connect(port: port) }
            for socket in first { RawSocket.send(socket, Self.healthz) }
            for socket in first { #expect(await RawSocket.hasInput(socket, within: 10_000), "one of the first four") }
            // Four more wait in the kernel's queue meanwhile: the first of them hears nothing for a second
            // (the four ahead of it are dropped three seconds after their answers, not before).
            let next = (0..<4).map { _ in RawSocket.connect(port: port) }
            for socket in next { RawSocket.send(socket, Self.healthz) }
            #expect(!(await RawSocket.hasInput(next[0], within: 1_000)), "a fifth connection was served beside four")
            // The first four are still open at the client's end: the gateway drops them at its timeout, three
            // seconds (not its default thirty), and then answers the fifth.
            #expect(await RawSocket.hasInput(next[0], within: 10_000), "the first four were not dropped within 10 s")
            // Each read ends when the gateway drops the connection (or after 5 s of silence).
            var answered = 0
            for socket in first + next {
                if await RawSocket.readAll(socket).hasPrefix("HTTP/1.1 200") { answered += 1 }
                close(socket)
            }
            #expect(answered == 8, "the four that waited were accepted and answered once the first four ended: \(answered) of 8")
            // The second four ended together too, at the limit: a connection after them is still answered.
            let last = await RawSocket.exchange(
                port: port, sending: Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
            #expect(last.hasPrefix("HTTP/1.1 200"), "a connection after them is answered: \(last.prefix(40))")
            // /metrics tells it: the limit, the loop full twice at least and five times at most (more than twice
            // when the first four ended and the next were accepted one at a time), and one connection open now,
            // its own.
            let metrics = await RawSocket.exchange(
                port: port, sending: Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
            func value(_ name: String) -> Int? {
                metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) }
            }
            #expect(value("hardtack_gateway_connection_limit") == 4, "\(metrics)")
            #expect(value("hardtack_gateway_connections") == 1, "\(metrics)")
            #expect((2...5).contains(value("hardtack_gateway_connection_limit_reached_total") ?? 0), "\(metrics)")
        }

        /// The timeout's two halves: a request whose body goes quiet is dropped (libmicrohttpd's limit on a quiet
        /// connection), and so is one whose head trickles in, a byte every half second, never quiet for the
        /// timeout (the server's own deadline on a head); neither is answered.
        @Test func aQuietBodyAndATrickledHeadAreDroppedAtTheConnectionTimeout() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await sandbox.startGateway(
                issuer: provider.issuer, routes: [], extra: ["--connection-timeout", "3"])
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let port = try #require(origin.split(separator: ":").last.flatMap { UInt16($0) })
            let quietBody = RawSocket.connect(port: port)
            defer { close(quietBody) }
            RawSocket.send(quietBody, Array("POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n".utf8))
            #expect(!(await RawSocket.hasInput(quietBody, within: 1_000)), "a request with its body to come was answered")
            #expect(await RawSocket.hasInput(quietBody, within: 10_000), "a request whose body went quiet was not dropped within 10 s")
            #expect(await RawSocket.readAll(quietBody) == "", "dropped without an answer")

            let trickled = RawSocket.connect(port: port)
            defer { close(trickled) }
            RawSocket.send(trickled, Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8))
            let started = ContinuousClock.now
            var dropped = false
            // Twenty half-seconds, a byte each: ten seconds, past the three-second deadline and its once-a-second look.
            for _ in 0..<20 where !dropped {
                RawSocket.send(trickled, Array("a".utf8))
                dropped = await RawSocket.hasInput(trickled, within: 500)
            }
            #expect(dropped, "a head trickled for 10 s was not dropped")
            #expect(ContinuousClock.now - started >= .seconds(2), "dropped before its deadline")
            #expect(await RawSocket.readAll(trickled) == "", "dropped without an answer")
        }

        /// Under a soft descriptor limit of 64 (a hard one of 4,096), a gateway of 100 connections on one loop
        /// raises its soft limit to the 337 they, their upstream calls and the issuer client's kept connections
        /// may need (2 × 100, 64 + 8 for the loop, 1 + 64 for the store and the rest); under a hard limit of 200 it
        /// raises it to 200 and says at start that it is short; a soft limit already above what it needs stays.
        @Test func theGatewayRaisesItsDescriptorLimitToFitItsConnections() async throws {
            let provider = try TestProvider()
            let prlimit = "/usr/bin/prlimit"
            try #require(FileManager.default.isExecutableFile(atPath: prlimit), "util-linux's prlimit")
            let warning = "warning: this process may open"
            for (given, expected) in [((64, 4_096), (337, 4_096)), ((64, 200), (200, 200)), ((1_000, 4_096), (1_000, 4_096))] {
                let (gateway, _) = try await sandbox.startGateway(
                    issuer: provider.issuer, routes: [], extra: ["--max-connections", "100", "--threads", "1"],
                    launcher: [prlimit, "--nofile=\(given.0):\(given.1)", "--"])
                defer { _ = sandbox.stopGatewayNow(gateway) }
                let limits = try String(contentsOfFile: "/proc/\(gateway.process.processIdentifier)/limits", encoding: .utf8)
                let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
                let numbers = line.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
                #expect(numbers == [expected.0, expected.1], "\(line ?? "no line")")
                let errors = gateway.errorsSoFar
                if expected.0 < 337 {
                    #expect(errors.contains(warning + " 200 files at once (hard limit 200), fewer than the 337"), "\(errors)")
                } else {
                    #expect(!errors.contains(warning), "\(errors)")
                }
            }
        }
    }
}
