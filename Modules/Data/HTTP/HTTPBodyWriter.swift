public import Foundation

/// The writing end of an ``HTTPBodyStream``'s pipe (made by ``HTTPBodyStream/pipe(capacity:limit:)``):
/// a transfer copies its body in as it arrives, waiting while the reader is a full buffer behind, then
/// finishes it or says why it failed. A writer let go of before either fails its stream, so a reader is
/// never left waiting.
public final class HTTPBodyWriter: Sendable {
    let buffer: HTTPBodyBuffer

    init(buffer: HTTPBodyBuffer) {
        self.buffer = buffer
    }

    deinit {
        buffer.fail(.transport("the body ended early"), keepingBytes: true)
    }

    /// Copies `bytes` in, blocking the calling thread while the buffer is full; `false` once nothing more
    /// is wanted (the reader went away, the stream was aborted, or `bytes` would take it past its limit):
    /// the transfer should stop then.
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        buffer.write(bytes)
    }

    /// What a write that does not wait did.
    public enum Attempt: Sendable {
        /// Every byte was copied in.
        case written
        /// Nothing was copied: the buffer has no room for them yet; the writer is told once it has.
        case full
        /// Nothing more is wanted (as ``write(_:)-(UnsafeRawBufferPointer)``'s `false`).
        case closed
    }

    /// Copies all of `bytes` in without blocking if there is room for them; when there is not, nothing is
    /// copied and `whenRoom` is called once the reader has taken every byte held, or the stream closed (from
    /// the reader's thread, which it must not hold up). Never blocks: for an event loop. Bytes more than the
    /// capacity are taken whole once the buffer is empty.
    public func write(_ bytes: UnsafeRawBufferPointer, whenRoom: @escaping @Sendable () -> Void) -> Attempt {
        buffer.write(bytes, whenRoom: whenRoom)
    }

    /// Copies `data` in (see ``write(_:)-(UnsafeRawBufferPointer)``).
    public func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { buffer.write($0) }
    }

    /// Whether nothing more is wanted: the reader went away or the stream ended.
    public var isClosed: Bool { buffer.isClosed }

    /// The most bytes held between writer and reader: a write of more waits for the reader.
    public var capacity: Int { buffer.capacity }

    /// The body is complete: the reader gets what is held, then the end.
    public func finish() {
        buffer.finish()
    }

    /// The body ended early: the reader gets what is held, then `error`.
    public func fail(_ error: HTTPClientError) {
        buffer.fail(error, keepingBytes: true)
    }
}
