public import Foundation

/// A clock tests move by hand; `now` is what use cases receive as their injected time.
public final class TestClock: Sendable {
    private let current: Locked<Date>

    /// Starts at a fixed instant, so tests do not depend on the real date.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Locked(start)
    }

    /// The current instant.
    public var date: Date { current.withLock { $0 } }

    /// The clock as the closure use cases take.
    public var now: @Sendable () -> Date { { [self] in date } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
