/// Where a store handle's change marks come from when they need no lock of the handle: a backend that
/// can tell that something was committed without its handle's connection (SQLite, through read-only
/// connections of the marks' own) gives one (``ItemStorage/changeMarkSource``), and the handle's
/// ``LockedEngine/changeMark(waiting:)`` asks it instead of taking the handle's lock, so that threads
/// asking at once (a server's event loops, each before answering from sessions kept in memory) do not wait
/// for one another or for the handle's other work.
package protocol ChangeMarkSource: Sendable {
    /// A number that moves with every commit to the store, by any connection, process or machine, read
    /// now; `nil` when it cannot be read now (unless `waiting`, when that would mean waiting for a lock).
    /// See ``SecureItemStore/changeMark(waiting:)``.
    func mark(waiting: Bool) -> UInt64?
}
