@testable import CurlHTTP
import Data
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// libcurl's client keeps its finished transfers' connections and reuses them (the gateway calls its
/// upstreams through one client each): against a keep-alive server that counts the connections it accepts.
@Suite struct CurlConnectionReuseTests {
    /// An HTTP/1.1 server on a loopback port that answers every request `200 ok` and keeps the connection
    /// open, counting the connections its own test's requests came on (a random path: no other test's
    /// client is counted), except one opened after the test's last request was longer ago than curl's
    /// maximum idle age of a kept connection (118 s, `CURLOPT_MAXAGE_CONN`'s default), which curl rightly
    /// closes. Under the whole suite with AddressSanitizer these tests once took 150 s, most of it waiting
    /// for a thread of Swift's pool, and a kept connection aged out between two calls.
    final class KeepAliveServer: Sendable {
        let port: UInt16
        private let listener: Int32
        /// How many connections this test's requests came on, and those still open (closed only under this
        /// lock, so no descriptor is shut down after its number went to another socket).
        private let state = Mutex<(accepted: Int, open: Set<Int32>, lastRequest: ContinuousClock.Instant?)>(
            (0, [], nil))
        /// The path of this test's requests: a random segment no other test's client sends.
        let path = "/" + UUID().uuidString + "/ok"

        init() {
            (listener, port) = RawSocket.silentListener()
            let listener = listener
            Thread { [self] in
                while true {
                    let connection = accept(listener, nil, nil)
                    // Stopped: the listener is closed here, where no accept can still be waiting on it.
                    guard connection >= 0 else { close(listener); return }
                    state.withLock { _ = $0.open.insert(connection) }
                    Thread { [self] in serve(connection) }.start()
                }
            }.start()
        }

        /// curl's default maximum idle age of a kept connection (`CURLOPT_MAXAGE_CONN`).
        static let curlMaximumIdleAge = Duration.seconds(118)

        /// The connections this test's requests came on so far (but one that replaced a connection aged out).
        var accepted: Int { state.withLock { $0.accepted } }

        var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

        /// Ends every open connection, as a server whose idle timeout ran out.
        func dropConnections() {
            state.withLock { for connection in $0.open { shutdown(connection, Int32(SHUT_RDWR)) } }
        }

        /// Stops accepting and ends every connection.
        func stop() {
            shutdown(listener, Int32(SHUT_RDWR))
            dropConnections()
        }

        /// Answers each request head (these requests have no body) until the connection ends.
        private func serve(_ connection: Int32) {
            defer {
                state.withLock {
                    $0.open.remove(connection)
                    close(connection)
                }
            }
            var pending = [UInt8]()
            var counted = false
            let ours = Array("GET \(path) ".utf8)
            var buffer = [UInt8](repeating: 0, count: 4096)
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok".utf8)
            while true {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { return }
                pending += buffer[..<count]
                while let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                    if pending.starts(with: ours) {
                        let now = ContinuousClock.now
                        state.withLock {
                            let agedOut = $0.lastRequest.map { now - $0 > Self.curlMaximumIdleAge } ?? false
                            if !counted, !agedOut { $0.accepted += 1 }
                            $0.lastRequest = now
                        }
                        counted = true
                    }
                    pending.removeSubrange(..<end.upperBound)
                    _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                }
            }
        }
    }

    @Test func sequentialCallsShareOneConnection() async throws {
        let server = KeepAliveServer()
        defer { server.stop() }
        let client = CurlHTTPClient(baseURL: server.baseURL, timeout: 5)
        for _ in 0..<5 {
            let answer = try await client.send(HTTPRequest(method: "GET", path: server.path))
            #expect(answer.status == 200 && answer.body == Data("ok".utf8))
        }
        #expect(server.accepted == 1)
    }

    @Test func theLoopsThreadEndsWhenIdleAndTheNextCallStartsAnotherKeepingTheConnection() async throws {
        let server = KeepAliveServer()
        defer { server.stop() }
        let client = CurlHTTPClient(
            baseURL: server.baseURL, timeout: 5, responseSizeLimit: 1 << 20, idleConnections: 4, loopLinger: 0.1)
        #expect(try await client.send(HTTPRequest(method: "GET", path: server.path)).status == 200)
        // Idle: the thread ends at its next wake-up past the linger (curl's poll waits at most a second; a
        // loaded machine under a sanitizer takes longer, hence the generous bound).
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while client.loop.threadIsRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!client.loop.threadIsRunning)
        // Answered only if a new thread runs the transfer (whether it still runs after is a race with its linger).
        let streamed = try await client.stream(HTTPRequest(method: "GET", path: server.path))
        #expect(streamed.status == 200 && streamed.body.takeWhole() == Data("ok".utf8))
        #expect(try await client.send(HTTPRequest(method: "GET", path: server.path)).status == 200)
        // The connections are the loop's, not its thread's: the first one served all three calls.
        #expect(server.accepted == 1)
    }

    @Test func streamedCallsOfSmallAnswersTakenWholeShareOneConnection() async throws {
        let server = KeepAliveServer()
        defer { server.stop() }
        let client = CurlHTTPClient(baseURL: server.baseURL, timeout: 5)
        for _ in 0..<20 {
            let answer = try await client.stream(HTTPRequest(method: "GET", path: server.path))
            #expect(answer.status == 200 && answer.body.takeWhole() == Data("ok".utf8))
        }
        #expect(server.accepted == 1)
    }

    @Test func concurrentCallsOpenNoMoreConnectionsThanAtOnce() async throws {
        let server = KeepAliveServer()
        defer { server.stop() }
        let client = CurlHTTPClient(baseURL: server.baseURL, timeout: 5)
        for _ in 0..<3 {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await client.send(HTTPRequest(method: "GET", path: server.path)).status } }
                for try await status in group { #expect(status == 200) }
            }
        }
        #expect(server.accepted <= 4, "12 calls, 4 at a time, took \(server.accepted) connections")
    }

    @Test func withoutIdleConnectionsEachCallConnects() async throws {
        let server = KeepAliveServer()
        defer { server.stop() }
        let client = CurlHTTPClient(baseURL: server.baseURL, timeout: 5, idleConnections: 0)
        #expect(client.idleConnections == 0)
        for _ in 0..<3 { #expect(try await client.send(HTTPRequest(method: "GET", path: server.path)).status == 200) }
        #expect(server.accepted == 3)
    }

    @Test func aConnectionTheServerClosedIsReplaced() async throws {
        let server = KeepAliveServer()
        defer { server.stop() }
        let client = CurlHTTPClient(baseURL: server.baseURL, timeout: 5)
        #expect(try await client.send(HTTPRequest(method: "GET", path: server.path)).status == 200)
        // As a server whose idle timeout ran out: the kept connection is gone, the next call makes another.
        server.dropConnections()
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await client.send(HTTPRequest(method: "GET", path: server.path)).status == 200)
        #expect(server.accepted == 2)
    }
}
