import Foundation
import PostgreSQLStore

/// Where a store handle keeps its instance lock once taken, shared by every copy of the handle.
final class InstanceLockSlot: Sendable {
    private let lock = NSLock()
    // Safety: read and written only while `lock` is held.
    private nonisolated(unsafe) var taken: PostgreSQLInstanceLock?

    /// The lock taken earlier, or the one `take` gives now (nothing is kept when it gives none).
    func take(_ take: () -> PostgreSQLInstanceLock?) -> PostgreSQLInstanceLock? {
        lock.lock()
        defer { lock.unlock() }
        if let taken { return taken }
        taken = take()
        return taken
    }
}
