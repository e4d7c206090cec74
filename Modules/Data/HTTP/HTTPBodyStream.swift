public import Foundation

/// A body that arrives while it is being sent on: the reading end of a bounded pipe whose writing end is an
/// ``HTTPBodyWriter``. At most ``capacity`` bytes are held between them: a writer that gets ahead waits
/// for the reader (backpressure), a reader that gets ahead is told to wait for the writer.
///
/// Read it one way: ``next()`` or ``collect(upTo:)`` from Swift code, or ``read(into:suspending:wake:)``
/// from a C callback that must not block. Letting go of the stream unread, or ``cancel()``, tells the
/// writer to stop. Nothing here logs a byte.
public final class HTTPBodyStream: Sendable {
    /// What one ``read(into:suspending:wake:)`` gave.
    public enum Read: Sendable {
        /// This many bytes were copied (more than zero).
        case bytes(Int)
        /// Nothing now: `suspend` was called, and `wake` will be once bytes or the end arrive.
        case waiting
        /// The body is complete.
        case end
        /// The body ended early: the writer's transfer failed, went past its limit, or the stream was
        /// cancelled or aborted.
        case failed(HTTPClientError)
    }

    /// How a stream ended for its reader (see ``whenEnded(_:)``).
    public enum Ending: Sendable, Equatable {
        /// The reader had every byte.
        case complete
        /// The body ended early for this reason.
        case failed(HTTPClientError)
        /// The reader gave up before the end (a browser went away).
        case cancelled
    }

    /// What ``abort(_:)`` fails a stream with when its server stops.
    public static let stopped = HTTPClientError.transport("the server is stopping")

    /// What ``abort(_:)`` fails a stream with when its server answers 500 in place of its answer, whose head
    /// would not fit beside its request's (the server logs that itself).
    public static let headTooLarge = HTTPClientError.transport("the answer's head does not fit beside its request's")

    let buffer: HTTPBodyBuffer

    init(buffer: HTTPBodyBuffer) {
        self.buffer = buffer
    }

    /// A stream of `data`, complete already: a buffered body where a stream is expected.
    public convenience init(_ data: Data) {
        let buffer = HTTPBodyBuffer(capacity: data.count, limit: nil)
        _ = data.withUnsafeBytes { buffer.write($0) }
        buffer.finish()
        self.init(buffer: buffer)
    }

    /// A new pipe: the stream and the writer that fills it, holding at most `capacity` bytes between them
    /// (256 KiB by default), and failing with ``HTTPClientError/responseTooLarge(limit:)`` past `limit`
    /// bytes in all (`nil`: no limit).
    public static func pipe(
        capacity: Int = 256 << 10, limit: Int? = nil
    ) -> (stream: HTTPBodyStream, writer: HTTPBodyWriter) {
        let buffer = HTTPBodyBuffer(capacity: capacity, limit: limit)
        return (HTTPBodyStream(buffer: buffer), HTTPBodyWriter(buffer: buffer))
    }

    deinit {
        buffer.cancel()
    }

    /// The most bytes held between writer and reader at once.
    public var capacity: Int { buffer.capacity }

    /// The most bytes that were held at once so far: never over ``capacity``.
    public var highWaterMark: Int { buffer.highWaterMark }

    /// Copies up to `buffer.count` bytes into `buffer` without waiting. When none are there yet it calls
    /// `suspend`, then returns ``Read/waiting``, and calls `wake` once (from the writer's thread) when
    /// bytes or the end arrive, or the stream is aborted or cancelled. Both are called with the stream
    /// locked, so `wake` cannot come before `suspend`: they must not call back into the stream.
    public func read(
        into buffer: UnsafeMutableRawBufferPointer, suspending suspend: () -> Void, wake: @escaping @Sendable () -> Void
    ) -> Read {
        self.buffer.read(into: buffer, suspend: suspend, wake: wake)
    }

    /// The next bytes as they arrive (up to 64 KiB at a time), or `nil` at the end. Cancelling the task
    /// cancels the stream.
    /// - Throws: why the body ended early.
    public func next() async throws(HTTPClientError) -> Data? {
        while true {
            let step: Result<Data?, HTTPClientError>? = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    var chunk = Data(count: 64 << 10)
                    let read = chunk.withUnsafeMutableBytes { bytes in
                        buffer.read(into: bytes, suspend: {}, wake: { continuation.resume(returning: nil) })
                    }
                    switch read {
                    case .bytes(let count):
                        chunk.count = count
                        continuation.resume(returning: .success(chunk))
                    case .waiting: break
                    case .end: continuation.resume(returning: .success(nil))
                    case .failed(let error): continuation.resume(returning: .failure(error))
                    }
                }
            } onCancel: {
                buffer.cancel()
            }
            if let step { return try step.get() }
        }
    }

    /// The whole body, read to its end; a body over `limit` bytes cancels the stream.
    /// - Throws: ``HTTPClientError/responseTooLarge(limit:)`` past `limit`, or why the body ended early.
    public func collect(upTo limit: Int) async throws(HTTPClientError) -> Data {
        var body = Data()
        while let chunk = try await next() {
            guard body.count + chunk.count <= limit else {
                cancel()
                throw .responseTooLarge(limit: limit)
            }
            body.append(chunk)
        }
        return body
    }

    /// The whole body at once, when it had all arrived before anything was read (a small answer its
    /// writer finished first): taken, the stream then complete for its reader. `nil` otherwise (read it as a
    /// stream), changing nothing.
    public func takeWhole() -> Data? {
        buffer.takeWhole()
    }

    /// Wants no more: the bytes held are dropped and the writer is told to stop.
    public func cancel() {
        buffer.cancel()
    }

    /// Ends the stream early from the reader's side (its server stopping): the bytes held are dropped, a
    /// waiting reader is woken and sees `error`, and the writer is told to stop.
    public func abort(_ error: HTTPClientError = HTTPBodyStream.stopped) {
        buffer.fail(error, keepingBytes: false)
    }

    /// Calls `observer` once, with how the stream ended for its reader and the bytes it had, when the
    /// reader reaches the end or a failure or gives up; at once if that happened already.
    public func whenEnded(_ observer: @escaping @Sendable (Ending, _ bytes: Int) -> Void) {
        buffer.whenEnded(observer)
    }
}
