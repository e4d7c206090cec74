internal import CMicroHTTPD
import Data
import Foundation

/// One streamed answer on its connection: libmicrohttpd's content reader copies the stream's bytes out
/// as they arrive; when none are there it suspends the connection (no thread waits) and the stream's
/// writer resumes it once bytes or the end arrive, and asks the daemon's loop to run it. The free callback, when the response is let go of
/// (sent, or its client gone), cancels the stream, so its writer stops.
///
/// Safety (`@unchecked Sendable`): `stream` is itself `Sendable` and `state` is; `connection` is
/// immutable. The connection pointer is used on the daemon's loop inside the content reader (to
/// suspend it, which libmicrohttpd allows there), and by the writer's thread, through the stream's wake,
/// to resume it: libmicrohttpd allows that from any thread while the connection is suspended, and the
/// stream calls wake once per suspension, and only once the read that suspended it (with the stream's lock
/// held) let go of that lock, so never before the suspension it follows.
/// The connection outlives the response, so it is valid until the free callback; `attached`, read and
/// written under `lock` only, turns false there, after which it is never touched.
final class MicroHTTPStreamReader: @unchecked Sendable {
    /// The body sent.
    let stream: HTTPBodyStream
    private let connection: OpaquePointer
    private let daemon: MicroHTTPDaemon
    private let lock = NSLock()
    private var attached = true

    /// The largest block the content reader is asked for when the length is not sent (HTTP/1.0).
    static let blockSize = 16 << 10

    init(stream: HTTPBodyStream, connection: OpaquePointer, daemon: MicroHTTPDaemon) {
        self.stream = stream
        self.connection = connection
        self.daemon = daemon
    }

    /// libmicrohttpd's content reader: bytes held now, or nothing with the connection suspended until they
    /// come, or the end, or an error (the client sees the answer cut short). Called on its thread.
    static let read: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer, max > 0 else { return hardtack_mhd_end_with_error }
        let reader = Unmanaged<MicroHTTPStreamReader>.fromOpaque(cls).takeUnretainedValue()
        let outcome = reader.stream.read(
            into: UnsafeMutableRawBufferPointer(start: buffer, count: max),
            suspending: { MHD_suspend_connection(reader.connection) }, wake: { reader.resume() })
        switch outcome {
        case .bytes(let count): return count
        case .waiting: return 0
        case .end: return hardtack_mhd_end_of_stream
        case .failed: return hardtack_mhd_end_with_error
        }
    }

    /// libmicrohttpd lets go of the response: the connection is done with it (answered, cut, or its client
    /// gone). Releases the reference the response held.
    static let free: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let reader = Unmanaged<MicroHTTPStreamReader>.fromOpaque(cls).takeRetainedValue()
        reader.lock.lock()
        reader.attached = false
        reader.lock.unlock()
        reader.daemon.state.forget(reader)
        reader.stream.cancel()
    }

    /// Resumes the suspended connection, unless libmicrohttpd let go of the response.
    private func resume() {
        lock.lock()
        let resumes = attached
        if resumes { MHD_resume_connection(connection) }
        lock.unlock()
        if resumes { daemon.needsRun() }
    }
}
