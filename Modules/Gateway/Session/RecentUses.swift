import Foundation
import Locking

/// The latest record of each session's use in the store that this process wrote or read: a lower bound
/// of its last use that needs no store read (a record written since, by any instance, can only be later). Bounded: past `capacity` sessions
/// it forgets them all and learns again from the store. Each thread reads a copy of its own (every call
/// asks), which every record and removal changes, so that a server's loops never wait for one another.
final class RecentUses: Sendable {
    private let capacity: Int
    private let recorded = PerThread<[String: Date]> { [:] }

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The latest use of `sessionID` this process recorded or read, if it remembers one.
    func recordedUse(of sessionID: String) -> Date? {
        recorded.withLock { $0[sessionID] }
    }

    /// Notes that the store records a use of `sessionID` at `date` (this process wrote it, or read it).
    func noteRecorded(_ sessionID: String, at date: Date) {
        recorded.forEach { uses in
            if uses.count >= capacity, uses[sessionID] == nil { uses.removeAll(keepingCapacity: true) }
            uses[sessionID] = date
        }
    }

    /// Forgets `sessionID` (it ended).
    func forget(_ sessionID: String) {
        recorded.forEach { $0[sessionID] = nil }
    }
}
