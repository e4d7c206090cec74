import Data
import Foundation
import TestSupport
import Testing

/// The pipe under a streamed body: bounded, with a writer that waits for its reader, and an end its
/// reader always sees, however either side stops.
@Suite(.timeLimit(.minutes(3))) struct HTTPBodyStreamTests {
    @Test func aCompleteBodyReadsWholeAndALimitRefusesMore() async throws {
        #expect(try await HTTPBodyStream(Data("hello".utf8)).collect(upTo: 5) == Data("hello".utf8))
        #expect(try await HTTPBodyStream(Data()).collect(upTo: 0).isEmpty)
        let (body, writer) = HTTPBodyStream.pipe(capacity: 4)
        #expect(writer.write(Data("abcd".utf8)))
        writer.finish()
        await #expect(throws: HTTPClientError.responseTooLarge(limit: 3)) { _ = try await body.collect(upTo: 3) }
    }

    @Test func aWriterLetGoOfBeforeItsEndFailsTheStreamAfterItsBytes() async throws {
        func abandoned() -> HTTPBodyStream {
            let (body, writer) = HTTPBodyStream.pipe()
            #expect(writer.write(Data("ab".utf8)))
            return body
        }
        let body = abandoned()
        #expect(try await body.next() == Data("ab".utf8))
        await #expect(throws: HTTPClientError.transport("the body ended early")) { _ = try await body.next() }
    }

    @Test func aWriterPastItsLimitIsStoppedAndTheReaderToldWhy() async throws {
        let (body, writer) = HTTPBodyStream.pipe(capacity: 16, limit: 10)
        #expect(writer.write(Data(count: 8)))
        #expect(!writer.write(Data(count: 8)))
        #expect(writer.isClosed)
        await #expect(throws: HTTPClientError.responseTooLarge(limit: 10)) { _ = try await body.collect(upTo: 100) }
    }

    @Test func aWriterAheadOfItsReaderWaitsHoldingNoMoreThanTheCapacity() async throws {
        // 15 writes of 7,000 bytes through a 10,000-byte ring: each waits on a reader task, whose wake-ups on a
        // suite-loaded 2-core machine can take a second, so not a hundred of them.
        let (body, writer) = HTTPBodyStream.pipe(capacity: 10_000)
        let total = 100_000
        let finished = Locked(false)
        Thread {
            var sent = 0
            while sent < total, writer.write(Data(repeating: UInt8(truncatingIfNeeded: sent / 7000), count: 7000)) {
                sent += 7000
            }
            writer.finish()
            finished.withLock { $0 = true }
        }.start()
        var received = Data()
        while let chunk = try await body.next() {
            received.append(chunk)
            // The writer cannot be done while the reader is more than the buffer behind its last byte.
            if received.count + 10_000 < 105_000 { #expect(!finished.withLock { $0 }) }
        }
        #expect(received.count == 105_000)
        #expect(received[6999] == 0 && received[7000] == 1 && received[99_999] == UInt8(truncatingIfNeeded: 99_999 / 7000))
        #expect(body.highWaterMark <= 10_000)
    }

    @Test func aWriteThatCannotWaitCopiesAllOrNothingAndIsToldWhenThereIsRoom() async throws {
        let (body, writer) = HTTPBodyStream.pipe(capacity: 10)
        let told = Locked(0)
        func write(_ count: Int) -> HTTPBodyWriter.Attempt {
            Data(repeating: UInt8(count), count: count).withUnsafeBytes { bytes in
                writer.write(bytes, whenRoom: { told.withLock { $0 += 1 } })
            }
        }
        guard case .written = write(6), case .full = write(6) else {
            Issue.record("6 bytes fit in an empty ring of 10, 6 more do not")
            return
        }
        #expect(told.withLock { $0 } == 0)
        var buffer = [UInt8](repeating: 0, count: 4)
        let read = buffer.withUnsafeMutableBytes { body.read(into: $0, suspending: {}, wake: {}) }
        guard case .bytes(4) = read else {
            Issue.record("the reader gets 4 of the 6 bytes, nothing of the refused write")
            return
        }
        // Room for the 6 refused bytes, but the writer goes on only once the reader has taken them all.
        #expect(told.withLock { $0 } == 0)
        guard case .bytes(2) = buffer.withUnsafeMutableBytes({ body.read(into: $0, suspending: {}, wake: {}) }) else {
            Issue.record("the reader gets the last 2 bytes")
            return
        }
        #expect(told.withLock { $0 } == 1)
        guard case .written = write(6), case .written = write(4), case .full = write(3) else {
            Issue.record("in the empty ring 6 and 4 fit, and it is then full")
            return
        }
        body.cancel()
        #expect(told.withLock { $0 } == 2)
        guard case .closed = write(1) else {
            Issue.record("a reader gone closes the stream to writes that do not wait")
            return
        }
    }

    @Test func aWriterToldToWaitIsToldOnceTheReaderHasTakenEverything() async throws {
        let (body, writer) = HTTPBodyStream.pipe(capacity: 10)
        let told = Locked(0)
        func write(_ count: Int) -> HTTPBodyWriter.Attempt {
            Data(count: count).withUnsafeBytes { writer.write($0, whenRoom: { told.withLock { $0 += 1 } }) }
        }
        guard case .written = write(6), case .full = write(9) else {
            Issue.record("6 bytes fit in a ring of 10, 9 more do not")
            return
        }
        var buffer = [UInt8](repeating: 0, count: 2)
        _ = buffer.withUnsafeMutableBytes { body.read(into: $0, suspending: {}, wake: {}) }
        #expect(told.withLock { $0 } == 0, "6 bytes of room are not the 9 the writer needs")
        _ = buffer.withUnsafeMutableBytes { body.read(into: $0, suspending: {}, wake: {}) }
        #expect(told.withLock { $0 } == 0, "8 bytes of room are not 9")
        _ = buffer.withUnsafeMutableBytes { body.read(into: $0, suspending: {}, wake: {}) }
        #expect(told.withLock { $0 } == 1, "the ring is empty")
        // More than the capacity at once: taken whole into the empty ring, never waiting.
        guard case .written = write(25) else {
            Issue.record("25 bytes go whole into an empty ring of capacity 10")
            return
        }
        writer.finish()
        #expect(try await body.collect(upTo: 100).count == 25)
    }

    @Test func theRingGrowsAsBytesWaitKeepingThemInOrderAcrossItsWrap() async throws {
        // The ring starts at 16 KiB: 10 KiB in, 6 KiB out, 10 KiB in wraps it; 20 KiB more grow it.
        let (body, writer) = HTTPBodyStream.pipe(capacity: 64 << 10)
        let pattern = (0..<(40 << 10)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        var sent = 0
        func send(_ count: Int) {
            #expect(writer.write(Data(pattern[sent..<sent + count])))
            sent += count
        }
        send(10 << 10)
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 6 << 10)
        let read = buffer.withUnsafeMutableBytes { body.read(into: $0, suspending: {}, wake: {}) }
        guard case .bytes(let count) = read else {
            Issue.record("10 KiB held read as bytes")
            return
        }
        received.append(contentsOf: buffer[..<count])
        send(10 << 10)
        send(20 << 10)
        writer.finish()
        received.append(try await body.collect(upTo: 1 << 20))
        #expect(received == Data(pattern))
        #expect(body.highWaterMark == 40 << 10 - count)
    }

    @Test func aReaderThatGivesUpReleasesAWaitingWriterAndSaysSo() async throws {
        let (body, writer) = HTTPBodyStream.pipe(capacity: 10)
        let ended = Locked<(HTTPBodyStream.Ending, Int)?>(nil)
        body.whenEnded { ending, bytes in ended.withLock { $0 = (ending, bytes) } }
        let filled = Locked(false)
        let second = Task {
            await DedicatedThread.run {
                // The first write fills the buffer; the second waits until the reader gives up.
                let first = writer.write(Data(count: 10))
                filled.withLock { $0 = true }
                return first && writer.write(Data(count: 10))
            }
        }
        while !filled.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        body.cancel()
        #expect(await second.value == false)
        #expect(writer.isClosed)
        #expect(ended.withLock { $0?.0 } == .cancelled)
    }

    @Test func anAbortedStreamWakesItsWaitingReader() async throws {
        let (body, writer) = HTTPBodyStream.pipe()
        let woken = Locked(false)
        var buffer = [UInt8](repeating: 0, count: 8)
        let read = buffer.withUnsafeMutableBytes { bytes in
            body.read(into: bytes, suspending: {}, wake: { woken.withLock { $0 = true } })
        }
        guard case .waiting = read else {
            Issue.record("an empty open stream reads as waiting")
            return
        }
        body.abort()
        #expect(woken.withLock { $0 })
        #expect(!writer.write(Data(count: 1)))
        await #expect(throws: HTTPBodyStream.stopped) { _ = try await body.next() }
    }
}
