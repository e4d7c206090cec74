import CurlHTTP
import Data
import Foundation
import TestSupport
import Testing

import class Locking.DispatchTaskExecutor

/// `CurlHTTPClient.stream`: the head handed over as soon as it arrives, the body through a bounded
/// buffer that holds a fast upstream back, and every way a body can end early ending the stream (never
/// a hang): cut, silent, over the limit, or let go of by its reader.
@Suite(.timeLimit(.minutes(3))) struct CurlStreamingTests {
    static func client(_ upstream: StreamingUpstream, timeout: TimeInterval = 10, limit: Int = .max) -> CurlHTTPClient {
        CurlHTTPClient(baseURL: upstream.url, timeout: timeout, responseSizeLimit: limit)
    }

    @Test func aLargeBodyStreamsThroughABoundedBufferThatHoldsTheUpstreamBack() async throws {
        let size = 48 << 20
        let upstream = StreamingUpstream(.init(bytes: size))
        let response = try await Self.client(upstream).stream(HTTPRequest(method: "GET", path: "/big"))
        #expect(response.status == 200)
        #expect(response.headers["X-Upstream"] == "yes")
        // Nobody reads yet: the upstream cannot be done, its writes wait on a full buffer and socket.
        try await Task.sleep(for: .milliseconds(300))
        #expect(upstream.outcome == nil && upstream.sent < size)
        let read = await StreamedBody.drainOnThread(response.body)
        #expect(read.failure == nil)
        #expect(read.count == size && read.inOrder)
        #expect(response.body.capacity == 256 << 10)
        #expect(response.body.highWaterMark <= response.body.capacity)
        #expect(await upstream.ended() == .sent)
    }

    @Test func aStreamPausedForItsReaderHoldsNoOtherTransferOfItsClientBack() async throws {
        // A client's transfers share one event loop: a body nobody reads (far more than its buffer and the
        // sockets hold) pauses its transfer, and another of the same client goes on to its end meanwhile.
        let size = 16 << 20
        let upstream = StreamingUpstream(.init(bytes: size))
        let client = Self.client(upstream)
        let waiting = try await client.stream(HTTPRequest(method: "GET", path: "/idle"))
        try await Task.sleep(for: .milliseconds(200))
        let streamed = try await client.stream(HTTPRequest(method: "GET", path: "/busy"))
        let read = await StreamedBody.drainOnThread(streamed.body)
        #expect(read.failure == nil && read.count == size && read.inOrder)
        // The paused one filled its buffer to within one of curl's writes (16 KiB at most) and waits there.
        #expect(waiting.body.highWaterMark >= waiting.body.capacity - (16 << 10))
        let late = await StreamedBody.drainOnThread(waiting.body)
        #expect(late.failure == nil && late.count == size && late.inOrder)
    }

    @Test func aStreamedBodyEndingWhileItsReaderWaitsOnAServersThreadsHangsNothing() async throws {
        // The loop hands a finished stream's end to its reader: a reader on the threads server handlers run
        // on (which may run a job at once on the thread that resumes it) must not run inside the stream's lock.
        var script = StreamingUpstream.Script(bytes: 300 << 10)
        script.lengthKnown = false
        let upstream = StreamingUpstream(script)
        let client = Self.client(upstream)
        let handlers = DispatchTaskExecutor(label: "hardtack.tests.handlers")
        for _ in 0..<3 {
            let count = try await Task(executorPreference: handlers) {
                let response = try await client.stream(HTTPRequest(method: "GET", path: "/unknown-length"))
                return try await response.body.collect(upTo: 1 << 20).count
            }.value
            #expect(count == 300 << 10)
        }
    }

    @Test func anUpstreamThatStopsMidBodyFailsTheStream() async throws {
        var script = StreamingUpstream.Script(bytes: 4 << 20)
        script.cutAfter = 1 << 20
        let upstream = StreamingUpstream(script)
        let response = try await Self.client(upstream).stream(HTTPRequest(method: "GET", path: "/cut"))
        let read = await StreamedBody.drain(response.body)
        #expect(read.count == 1 << 20 && read.inOrder)
        #expect(read.failure == .transport("the connection was lost"))
    }

    @Test func anUpstreamLateWithItsHeadTimesOut() async throws {
        var script = StreamingUpstream.Script(bytes: 10)
        script.headDelay = .seconds(5)
        let upstream = StreamingUpstream(script)
        await #expect(throws: HTTPClientError.timedOut) {
            _ = try await Self.client(upstream, timeout: 1).stream(HTTPRequest(method: "GET", path: "/late"))
        }
    }

    @Test func anUpstreamThatGoesSilentMidBodyTimesOutAndItsConnectionIsClosed() async throws {
        var script = StreamingUpstream.Script(bytes: 1 << 20)
        script.stallAfter = 64 << 10
        let upstream = StreamingUpstream(script)
        let response = try await Self.client(upstream, timeout: 1).stream(HTTPRequest(method: "GET", path: "/stall"))
        let read = await StreamedBody.drain(response.body)
        #expect(read.count == 64 << 10)
        #expect(read.failure == .timedOut)
        #expect(await upstream.ended() == .clientClosed)
    }

    @Test func lettingGoOfTheBodyStopsTheTransferAndClosesTheUpstreamConnection() async throws {
        let size = 64 << 20
        let upstream = StreamingUpstream(.init(bytes: size))
        let response = try await Self.client(upstream).stream(HTTPRequest(method: "GET", path: "/big"))
        var read = 0
        while read < 1 << 20, let chunk = try await response.body.next() { read += chunk.count }
        response.body.cancel()
        #expect(await upstream.ended() == .clientClosed)
        #expect(upstream.sent < size)
        await #expect(throws: HTTPClientError.self) { _ = try await response.body.next() }
    }

    @Test func aBodyOverTheLimitIsRefusedBeforeItsHeadOrCutWhenItsLengthIsUnknown() async throws {
        let declared = StreamingUpstream(.init(bytes: 2 << 20))
        await #expect(throws: HTTPClientError.responseTooLarge(limit: 1 << 20)) {
            _ = try await Self.client(declared, limit: 1 << 20).stream(HTTPRequest(method: "GET", path: "/big"))
        }
        var script = StreamingUpstream.Script(bytes: 32 << 20)
        script.lengthKnown = false
        let undeclared = StreamingUpstream(script)
        let response = try await Self.client(undeclared, limit: 1 << 20).stream(HTTPRequest(method: "GET", path: "/big"))
        let read = await StreamedBody.drain(response.body)
        #expect(read.count <= 1 << 20)
        #expect(read.failure == .responseTooLarge(limit: 1 << 20))
        #expect(await undeclared.ended() == .clientClosed)
    }
}

/// A small answer of known length is held with its head and arrives whole: taken at once, or read as a
/// stream; one that ends early or goes silent fails the call, since no head was handed over.
@Suite(.timeLimit(.minutes(3))) struct CurlSmallBodyTests {
    @Test func aSmallBodyOfKnownLengthArrivesWholeWithItsHead() async throws {
        let upstream = StreamingUpstream(.init(bytes: 10_000))
        let response = try await CurlStreamingTests.client(upstream).stream(HTTPRequest(method: "GET", path: "/small"))
        #expect(response.status == 200 && response.headers["X-Upstream"] == "yes")
        let whole = try #require(response.body.takeWhole())
        #expect(whole.count == 10_000)
        #expect(whole.enumerated().allSatisfy { $0.element == UInt8($0.offset % 256) })
        // Taken: the stream is at its end, and says so to a reader and an observer.
        #expect(try await response.body.next() == nil)
        let (ending, bytes) = await withCheckedContinuation { continuation in
            response.body.whenEnded { ending, bytes in continuation.resume(returning: (ending, bytes)) }
        }
        #expect(ending == .complete && bytes == 10_000)
    }

    @Test func theHeadOfASmallBodyWaitsForItsLastByte() async throws {
        var script = StreamingUpstream.Script(bytes: 10_000)
        script.lastByteDelay = .milliseconds(300)
        let upstream = StreamingUpstream(script)
        let started = ContinuousClock.now
        let response = try await CurlStreamingTests.client(upstream).stream(HTTPRequest(method: "GET", path: "/late"))
        // Handed over only once whole: the body is there to take at once, its last byte included.
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(try #require(response.body.takeWhole()).count == 10_000)
    }

    @Test func aSmallBodyCanStillBeReadAsAStream() async throws {
        let upstream = StreamingUpstream(.init(bytes: 1_000))
        let response = try await CurlStreamingTests.client(upstream).stream(HTTPRequest(method: "GET", path: "/small"))
        let read = await StreamedBody.drain(response.body)
        #expect(read.failure == nil && read.count == 1_000 && read.inOrder)
        #expect(response.body.takeWhole() == nil, "read already")
    }

    @Test func aBodyOfUnknownLengthOrOverTheBoundStreamsAsBefore() async throws {
        var script = StreamingUpstream.Script(bytes: 10_000)
        script.lengthKnown = false
        let upstream = StreamingUpstream(script)
        let unknown = try await CurlStreamingTests.client(upstream).stream(HTTPRequest(method: "GET", path: "/s"))
        let read = await StreamedBody.drain(unknown.body)
        #expect(read.failure == nil && read.count == 10_000 && read.inOrder)
        let large = StreamingUpstream(.init(bytes: (64 << 10) + 1))
        let over = try await CurlStreamingTests.client(large).stream(HTTPRequest(method: "GET", path: "/l"))
        let whole = await StreamedBody.drain(over.body)
        #expect(whole.failure == nil && whole.count == (64 << 10) + 1 && whole.inOrder)
    }

    @Test func aSmallBodyCutShortFailsTheCall() async throws {
        var script = StreamingUpstream.Script(bytes: 32 << 10)
        script.cutAfter = 8 << 10
        let upstream = StreamingUpstream(script)
        await #expect(throws: HTTPClientError.self) {
            _ = try await CurlStreamingTests.client(upstream).stream(HTTPRequest(method: "GET", path: "/cut"))
        }
    }

    @Test func aSmallBodyThatGoesSilentTimesOut() async throws {
        var script = StreamingUpstream.Script(bytes: 32 << 10)
        script.stallAfter = 8 << 10
        let upstream = StreamingUpstream(script)
        await #expect(throws: HTTPClientError.timedOut) {
            _ = try await CurlStreamingTests.client(upstream, timeout: 1).stream(HTTPRequest(method: "GET", path: "/stall"))
        }
        #expect(await upstream.ended() == .clientClosed)
    }

    @Test func aHeadRequestsLengthHoldsNothing() async throws {
        let upstream = StreamingUpstream(.init(bytes: 10_000))
        let response = try await CurlStreamingTests.client(upstream).stream(HTTPRequest(method: "HEAD", path: "/small"))
        #expect(response.status == 200)
        let read = await StreamedBody.drain(response.body)
        #expect(read.failure == nil && read.count == 0)
    }
}
