import Synchronization

/// How many connections a ``MicroHTTPServer`` holds open now, and how often one of its loops reached its
/// share of the connection limit (the connections the kernel gave that loop then waited in its queue): for
/// a server's metrics. Read from any thread; the loops count.
public final class MicroHTTPConnectionTally: Sendable {
    private let openNow = Atomic(0)
    private let filled = Atomic(0)

    /// An empty tally, for one server to keep.
    public init() {}

    /// Connections open now (accepted and not yet closed), every loop's.
    public var open: Int { openNow.load(ordering: .relaxed) }

    /// Times a loop reached its share of the connection limit.
    public var timesFull: Int { filled.load(ordering: .relaxed) }

    /// A connection was accepted.
    func opened() { openNow.add(1, ordering: .relaxed) }

    /// A connection was closed.
    func closed() { openNow.subtract(1, ordering: .relaxed) }

    /// A loop's run took it to its share of the limit.
    func reachedLimit() { filled.add(1, ordering: .relaxed) }
}
