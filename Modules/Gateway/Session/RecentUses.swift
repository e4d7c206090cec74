import Foundation
import Locking

/// The latest record of each session's use in the store that this process wrote or read: a lower bound
/// of its last use that needs no store read (a record written since, by any instance, can only be later).
/// Bounded: past `capacity` sessions it forgets them all and learns again from the store.
final class RecentUses: Sendable {
    private let capacity: Int
    private let recorded = Locked<[String: Date]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The latest use of `sessionID` this process recorded or read, if it remembers one.
    func recordedUse(of sessionID: String) -> Date? {
        recorded.withLock { $0[sessionID] }
    }

    /// Notes that this process wrote a use of `sessionID` at `date` to the store (what the store now holds).
    func noteRecorded(_ sessionID: String, at date: Date) {
        recorded.withLock { note(sessionID, at: date, in: &$0) }
    }

    /// Notes that the store held a use of `sessionID` at `date` when this process read it: kept unless a later
    /// one is known already (a read that took a while must not replace a write noted meanwhile).
    func noteRead(_ sessionID: String, at date: Date) {
        recorded.withLock { uses in
            if let known = uses[sessionID], known >= date { return }
            note(sessionID, at: date, in: &uses)
        }
    }

    /// Sets `sessionID`'s use in `uses`, starting over when a new session would pass `capacity`.
    private func note(_ sessionID: String, at date: Date, in uses: inout [String: Date]) {
        if uses.count >= capacity, uses[sessionID] == nil { uses.removeAll(keepingCapacity: true) }
        uses[sessionID] = date
    }

    /// Forgets `sessionID` (it ended).
    func forget(_ sessionID: String) {
        recorded.withLock { $0[sessionID] = nil }
    }
}
