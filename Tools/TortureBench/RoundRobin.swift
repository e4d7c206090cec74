import Synchronization

/// A load balancer's choice of server: each port in turn, whether or not its server is up (as nginx's
/// round robin with `max_fails=0`; the caller goes on to the next when one refuses).
final class RoundRobin: Sendable {
    /// The servers' ports.
    let ports: [UInt16]
    private let turn = Atomic<Int>(0)

    /// Over `ports` (at least one).
    init(_ ports: [UInt16]) {
        self.ports = ports
    }

    /// The next port in turn.
    func next() -> UInt16 {
        ports[turn.add(1, ordering: .relaxed).oldValue % ports.count]
    }
}
