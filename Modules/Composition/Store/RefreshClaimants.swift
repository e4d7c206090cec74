import ProcessIdentity
import PostgreSQLStore

/// Who claims refreshes through a store handle, and how the end of another claimant is seen: on this
/// machine by its process (``LocalProcessIdentity``), and on a PostgreSQL store, from any machine, by
/// its instance lock (``PostgreSQLInstanceLock``). A claimant whose end cannot be seen holds others back
/// until its lease runs out.
public struct RefreshClaimants: Sendable {
    /// This instance's lock on the store's server, when the store is on one.
    private let instanceLock: PostgreSQLInstanceLock?

    /// Claimants on this machine only, or on the server whose instance lock this is.
    init(instanceLock: PostgreSQLInstanceLock?) {
        self.instanceLock = instanceLock
    }

    /// A new owner id for a refresher of this process: its process, and its instance lock's key.
    public func ownerID() -> String {
        LocalProcessIdentity.ownerID() + (instanceLock?.ownerTag ?? "")
    }

    /// Whether the process or instance that wrote `owner` has ended. A process of this machine is judged
    /// by its pid alone: alive, it is not ended even while its instance lock's connection is cut.
    public func isGone(_ owner: String) -> Bool {
        if LocalProcessIdentity.isGone(owner) { return true }
        if LocalProcessIdentity.isOfThisMachine(owner) { return false }
        return instanceLock?.isGone(owner) ?? false
    }
}
