import Foundation
import Locking

/// When this process last recorded each session's use in the store: a lower bound of its last use that
/// needs no store read (another instance's record can only be later). Bounded: past `capacity` sessions
/// it forgets them all and learns again from the store.
final class RecentUses: Sendable {
    private let capacity: Int
    private let recorded = Locked<[String: Date]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// When this process last recorded the use of `sessionID`, if it did and remembers.
    func recordedUse(of sessionID: String) -> Date? {
        recorded.withLock { $0[sessionID] }
    }

    /// Notes that the use of `sessionID` at `date` is recorded in the store.
    func noteRecorded(_ sessionID: String, at date: Date) {
        recorded.withLock { uses in
            if uses.count >= capacity, uses[sessionID] == nil { uses.removeAll(keepingCapacity: true) }
            uses[sessionID] = date
        }
    }

    /// Forgets `sessionID` (it ended).
    func forget(_ sessionID: String) {
        recorded.withLock { $0[sessionID] = nil }
    }
}
