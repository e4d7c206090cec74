import Data
import Foundation
import StoreCore
import Synchronization

/// The store's change marks without the handle's lock: a few read-only connections of their own to the
/// store's file, each reading SQLite's `data_version`, which changes when any other connection commits
/// (the handle's own connection is another to them, so every commit moves it). A mark is a generation
/// number shared by all of them, raised whenever one of them sees its `data_version` move (or reads for
/// the first time): a mark read after a commit completed is always higher than every mark read before it,
/// whichever connections read them, since the connection that reads after it either sees the commit
/// itself, or last read after it, when it raised the generation.
///
/// A caller takes the first connection no other thread is using (a server's loops rarely meet); only
/// when all are in use does it fail (unless `waiting`, when it waits for the first). A connection is
/// opened at its first use, so a store asked by one thread at a time has one. A read costs about 2 µs
/// (SQLite's two file locks for the read, taken and let go).
///
/// Safety (`@unchecked Sendable`): each reader's connection and last version are used under its lock
/// only; `generation` is atomic; the rest is immutable.
final class SQLiteChangeMarks: ChangeMarkSource, @unchecked Sendable {
    /// One connection of the marks, and the `data_version` it last read.
    private final class Reader {
        let lock = NSLock()
        var connection: SQLiteConnection?
        var lastVersion: Int64?
        /// When opening its connection last failed: tried again a second later.
        var failedAt: ContinuousClock.Instant?
    }

    private let path: String
    private let readers: [Reader]
    private let generation = Atomic<UInt64>(1)

    /// Marks of the store file at `path` (resolved), read through at most `connections` connections.
    init(path: String, connections: Int = 4) {
        self.path = path
        readers = (0..<max(1, connections)).map { _ in Reader() }
    }

    /// See ``ChangeMarkSource/mark(waiting:)``.
    func mark(waiting: Bool) -> UInt64? {
        for reader in readers where reader.lock.try() {
            defer { reader.lock.unlock() }
            return read(reader, waiting: waiting)
        }
        guard waiting, let reader = readers.first else { return nil }
        reader.lock.lock()
        defer { reader.lock.unlock() }
        return read(reader, waiting: true)
    }

    /// The generation after `reader` read `data_version` (raised when it moved); `nil` when it could not
    /// be read. Under `reader`'s lock.
    private func read(_ reader: Reader, waiting: Bool) -> UInt64? {
        if let failedAt = reader.failedAt, ContinuousClock.now - failedAt < .seconds(1) { return nil }
        do throws(SecureStoreError) {
            let connection: SQLiteConnection
            if let open = reader.connection {
                connection = open
            } else {
                connection = try open()
                reader.connection = connection
            }
            let statement = try connection.prepared("PRAGMA data_version")
            defer { statement.reset() }
            let stepped: Bool
            if waiting {
                stepped = try statement.step()
            } else {
                stepped = try connection.withoutWaiting { () throws(SecureStoreError) in try statement.step() }
            }
            guard stepped else { return nil }
            let version = statement.int64(at: 0)
            if reader.lastVersion != version {
                reader.lastVersion = version
                generation.add(1, ordering: .acquiringAndReleasing)
            }
            return generation.load(ordering: .acquiring)
        } catch {
            // A connection that cannot be opened (no descriptor left, the file refused) is tried again a second
            // later, not at every call; meanwhile the caller reads the store. A busy read is tried again next time.
            if reader.connection == nil { reader.failedAt = ContinuousClock.now }
            return nil
        }
    }

    private func open() throws(SecureStoreError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, access: .readOnly)
        connection.setBusyTimeout(milliseconds: 5000)
        return connection
    }
}
