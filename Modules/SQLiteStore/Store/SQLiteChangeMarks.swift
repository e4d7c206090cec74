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
/// Once a connection has read the store, it reads SQLite's WAL-index header from the shared memory SQLite
/// mapped for it instead (``SQLiteWALIndexHeader``), which every commit changes: a mark then costs no lock
/// and no system call, and the generation rises when the header differs from the one that connection saw
/// last. It asks `data_version` again only while a writer is between the header's two copies, or when there
/// is no header it can read. (`data_version` takes SQLite's file locks, two to four `fcntl` calls, and a mutex this
/// process's connections share: two loops reading marks at once waited for each other there, and each
/// read cost more while the log held frames not yet copied back.)
///
/// A caller takes the first connection no other thread is using (a server's loops rarely meet); only
/// when all are in use does it fail (unless `waiting`, when it waits for the first). A connection is
/// opened at its first use, so a store asked by one thread at a time has one.
///
/// Safety (`@unchecked Sendable`): each reader's connection, header and last versions are used under its
/// lock only; `generation` is atomic; the rest is immutable.
final class SQLiteChangeMarks: ChangeMarkSource, @unchecked Sendable {
    /// One connection of the marks, the `data_version` it last read, and the WAL-index header it reads
    /// instead once it has read the store, and last saw.
    private final class Reader {
        let lock = NSLock()
        var connection: SQLiteConnection?
        var lastVersion: Int64?
        var header: SQLiteWALIndexHeader?
        var lastHeader: SQLiteWALIndexHeader.Snapshot?
        /// Whether the connection had no header this can read: `data_version` is read instead from then on.
        var headerUnavailable = false
        /// When opening its connection last failed: tried again a second later.
        var failedAt: ContinuousClock.Instant?

        deinit {
            // The header points into the connection's mapping: let go of first.
            header = nil
            connection = nil
        }
    }

    /// How many times a header a writer is between the copies of is read again before `data_version` is.
    private static let headerTries = 8

    private let path: String
    private let readers: [Reader]
    private let generation = Atomic<UInt64>(1)

    /// Marks of the store file at `path` (resolved), read through at most `connections` connections.
    init(path: String, connections: Int = 4) {
        self.path = path
        readers = (0..<max(1, connections)).map { _ in Reader() }
    }

    /// Whether a connection of the marks reads the WAL-index header (for tests: the marks' fast way is
    /// taken).
    var readsHeader: Bool {
        readers.contains { reader in
            reader.lock.lock()
            defer { reader.lock.unlock() }
            return reader.lastHeader != nil
        }
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

    /// The generation after `reader` read the header, or `data_version` (raised when either moved); `nil`
    /// when it could not be read. Under `reader`'s lock.
    private func read(_ reader: Reader, waiting: Bool) -> UInt64? {
        if let header = reader.header, let snapshot = Self.consistentSnapshot(of: header) {
            guard let last = reader.lastHeader else {
                // The first: `data_version`, read after it, tells whether anything was committed since the
                // last read; the next marks compare headers with this one (a commit after it changes the header).
                return readVersion(reader, waiting: waiting, header: snapshot)
            }
            if last != snapshot {
                reader.lastHeader = snapshot
                generation.add(1, ordering: .acquiringAndReleasing)
            }
            return generation.load(ordering: .acquiring)
        }
        return readVersion(reader, waiting: waiting, header: nil)
    }

    /// The header, read again while a writer is between its two copies (a few times: it takes a writer
    /// nanoseconds), or `nil`.
    private static func consistentSnapshot(of header: SQLiteWALIndexHeader) -> SQLiteWALIndexHeader.Snapshot? {
        for _ in 0..<headerTries {
            if let snapshot = header.snapshot() { return snapshot }
        }
        return nil
    }

    /// The generation after `reader` read `data_version`; `header`, read just before, becomes the header
    /// the next marks compare with once the read succeeds. Under `reader`'s lock.
    private func readVersion(_ reader: Reader, waiting: Bool, header: SQLiteWALIndexHeader.Snapshot?) -> UInt64? {
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
            if let header { reader.lastHeader = header }
            // The connection has read the store, so its shared memory is open and the header written: read
            // from the next mark on.
            if reader.header == nil, !reader.headerUnavailable {
                reader.header = SQLiteWALIndexHeader(of: connection)
                reader.headerUnavailable = reader.header == nil
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
