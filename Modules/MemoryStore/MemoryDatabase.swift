import Data
import Foundation
import StoreCore

/// One in-memory store's committed contents, shared by every handle opened on it: the stand-in for
/// a database file or server. Commits replace the contents whole; one writer at a time holds the
/// write lock from `beginWrite` to commit or rollback, as `BEGIN IMMEDIATE` does in SQLite.
///
/// Lives in this process only and persists nothing: the store is gone when the last reference is.
public final class MemoryDatabase: Sendable {
    /// Guards `committed`, `commits` and `writerActive`, and wakes a writer waiting for the lock.
    private let condition = NSCondition()
    // Safety: the three fields below are read and written only while `condition` is locked (every
    // access is inside `withLock`), so no two threads touch them at once.
    private nonisolated(unsafe) var committed = MemoryContents()
    private nonisolated(unsafe) var commits: Int64 = 0
    private nonisolated(unsafe) var writerActive = false

    /// An empty database: the first handle opened on it creates the store.
    public init() {}

    /// How many write transactions have changed the contents; a refused open leaves it as it was.
    package var commitCount: Int64 { withLock { commits } }

    /// A copy of the committed contents (a read outside a transaction, or a read transaction's snapshot).
    func snapshot() -> MemoryContents { withLock { committed } }

    /// ``snapshot()`` with the number of commits it holds (``commitCount`` as of that copy).
    func countedSnapshot() -> (contents: MemoryContents, commits: Int64) { withLock { (committed, commits) } }

    /// Takes the write lock, waiting up to `timeoutMilliseconds` for another writer to finish, and
    /// returns the committed contents to work on.
    /// - Throws: ``SecureStoreError/storage(_:)`` of kind `busy` when the wait runs out.
    func beginWrite(timeoutMilliseconds: Int32) throws(SecureStoreError) -> MemoryContents {
        let deadline = Date(timeIntervalSinceNow: Double(timeoutMilliseconds) / 1000)
        condition.lock()
        defer { condition.unlock() }
        while writerActive {
            guard condition.wait(until: deadline) || !writerActive else {
                throw .storage(
                    StorageFailure(backend: "memory", kind: .busy, message: "another handle held the write lock too long"))
            }
        }
        writerActive = true
        return committed
    }

    /// Replaces the committed contents with `contents` and releases the write lock.
    func commit(_ contents: MemoryContents) {
        withLock {
            committed = contents
            commits += 1
            writerActive = false
        }
        condition.signal()
    }

    /// Releases the write lock without changing anything.
    func endWrite() {
        withLock { writerActive = false }
        condition.signal()
    }

    private func withLock<Result>(_ body: () -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
