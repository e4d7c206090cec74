public import Foundation
import Synchronization

/// The embedded auth server's clock: a fixed start plus an offset that tests and demos move forward
/// with ``advance(by:)``, so expiry is exercised without sleeping.
public final class ServerClock: Sendable {
    private let start: Date
    private let offset = Mutex<TimeInterval>(0)

    /// A clock that reads `start` until it is advanced.
    public init(start: Date = Date()) {
        self.start = start
    }

    /// The clock's current time.
    public var now: Date { start.addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock forward by `seconds` (a negative value moves it back).
    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
