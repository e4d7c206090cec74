internal import CMicroHTTPD
import Data
import Epoll
import Foundation
import Synchronization

/// What the daemons' callbacks share: the handler, the limits, how many requests are in progress and the
/// answers still streaming, so that a stopping server can wait for the requests and cut the streams. (The
/// requests waiting for their handlers are each daemon's: ``MicroHTTPDaemon``.)
///
/// Safety (`@unchecked Sendable`): `handler`, `limits`, `refused` and `connections` (itself `Sendable`) are immutable; `count` and `draining` are atomic;
/// `streaming` and `cutting` are read and written under `lock` only.
final class MicroHTTPServerState: @unchecked Sendable {
    let handler: MicroHTTPServer.ReplyHandler
    let limits: MicroHTTPServerLimits
    /// Told of each request answered here, never handed to `handler`.
    let refused: MicroHTTPServer.RefusalObserver?
    /// The connections open, and how often a loop reached its share of the limit.
    let connections: MicroHTTPConnectionTally
    private let lock = NSLock()
    private let draining = Atomic(false)
    private var streaming: [ObjectIdentifier: MicroHTTPStreamReader] = [:]
    private var cutting = false
    private let count = Atomic(0)

    init(
        handler: @escaping MicroHTTPServer.ReplyHandler, limits: MicroHTTPServerLimits,
        refused: MicroHTTPServer.RefusalObserver? = nil, connections: MicroHTTPConnectionTally = .init()
    ) {
        self.handler = handler
        self.limits = limits
        self.refused = refused
        self.connections = connections
    }

    /// Requests between their first byte and their last answer byte.
    var inFlight: Int { count.load(ordering: .acquiring) }

    /// Whether the server is stopping: new requests are answered 503.
    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Counts a request from its first byte.
    func opened() {
        count.add(1, ordering: .acquiringAndReleasing)
    }

    /// Counts a request as finished (answered, or its connection closed).
    func closed() {
        count.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Marks the server as stopping.
    func beginDraining() {
        draining.store(true, ordering: .releasing)
    }

    /// Notes an answer that streams, until libmicrohttpd lets go of it; one that starts once the streams
    /// were cut (its handler answered just as the server stopped) is cut at once.
    func track(_ reader: MicroHTTPStreamReader) {
        lock.lock()
        streaming[ObjectIdentifier(reader)] = reader
        let cut = cutting
        lock.unlock()
        if cut { reader.stream.abort() }
    }

    /// Forgets an answer libmicrohttpd let go of.
    func forget(_ reader: MicroHTTPStreamReader) {
        lock.lock()
        streaming[ObjectIdentifier(reader)] = nil
        lock.unlock()
    }

    /// Cuts every answer still streaming (the server is stopping): each client sees its answer end early,
    /// each suspended connection is resumed to be closed, and each stream's writer is told to stop.
    func abortStreams() {
        lock.lock()
        cutting = true
        let cut = Array(streaming.values)
        lock.unlock()
        for reader in cut { reader.stream.abort() }
    }

    /// The answer to a request the server will not handle because it is stopping. (Computed: a global
    /// holding `Data` reads as a leak to LeakSanitizer, which does not see through its packed storage.)
    static var unavailable: HTTPResponse {
        MicroHTTPResponder.refusal(503, "unavailable", "the server is stopping")
    }
}
