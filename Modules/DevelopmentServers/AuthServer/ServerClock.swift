import Locking
public import Foundation

/// The embedded auth server's clock: either a fixed start that only moves when ``advance(by:)`` is
/// called (tests and the demo exercise expiry without sleeping), or the system clock plus any
/// advance (``live()``, for `hardtack serve`, where tokens must expire in real time).
public final class ServerClock: Sendable {
    private let start: Date?
    private let offset = Locked<TimeInterval>(0)

    /// A manual clock that reads `start` until it is advanced.
    public init(start: Date = Date()) {
        self.start = start
    }

    private init(live: Void) {
        start = nil
    }

    /// A clock that follows the system clock (plus any ``advance(by:)``).
    public static func live() -> ServerClock { ServerClock(live: ()) }

    /// The clock's current time.
    public var now: Date { (start ?? Date()).addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock forward by `seconds` (a negative value moves it back).
    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
