public import Foundation
import Synchronization

/// A clock a test moves by hand, for code that takes a `now` closure instead of reading the time.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    /// Starts the clock at `start` (a fixed, whole-second instant by default).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Mutex(start)
    }

    /// The clock's time.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
