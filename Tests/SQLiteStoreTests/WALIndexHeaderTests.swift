#if canImport(Glibc)
    import Glibc
#endif
import Data
import Domain
import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// The change marks' fast way: SQLite's WAL-index header, read from the mapped `-shm` file, stays the same
/// while only reads happen and changes with every commit, by any connection; the marks read it (not
/// `data_version`) from their second read on, and still move with every commit and never without one.
@Suite struct WALIndexHeaderTests {
    let fixture = StoreFixture()
    private static let item = ItemAttributes.genericPassword(service: "svc", account: "alice")

    @Test func theHeaderStaysWhileOnlyReadsHappenAndChangesWithEveryCommit() async throws {
        let store = try fixture.open()
        let other = try fixture.open()
        try await store.add(Self.item, data: SecretBytes(utf8: "one"))
        let connection = try SQLiteConnection(path: fixture.path, access: .readOnly)
        _ = try connection.scalarText("PRAGMA data_version")
        let header = try #require(SQLiteWALIndexHeader(of: connection))
        let first = try #require(header.snapshot())
        _ = try await store.find(Self.item, limit: .one, returning: .data)
        _ = try await other.find(Self.item, limit: .one, returning: .data)
        #expect(header.snapshot() == first, "reads commit nothing")
        try await other.update(Self.item, attributes: nil, data: SecretBytes(utf8: "two"))
        let second = try #require(header.snapshot())
        #expect(second != first, "another handle's commit")
        try await store.delete(Self.item)
        #expect(header.snapshot() != second, "this handle's commit")
    }

    @Test func readingTheHeaderLeavesTheProcesssLocksOnTheSharedMemoryInPlace() async throws {
        let store = try fixture.open()
        try await store.add(Self.item, data: SecretBytes(utf8: "one"))
        let marks = SQLiteChangeMarks(path: fixture.path, connections: 1)
        _ = marks.mark(waiting: true)
        _ = marks.mark(waiting: false)
        #expect(marks.readsHeader)
        // SQLite holds a shared lock on the shared memory's byte 128 while a connection of this process has it
        // (its "dead man switch": another process finding it unlocked would truncate and rebuild the file). An
        // open file description's lock conflicts with it, even in this process: asking for a write lock must
        // find it held. (Closing any descriptor of the file would have let go of it.)
        let probe = open(fixture.shmPath, O_RDWR | O_CLOEXEC)
        try #require(probe >= 0)
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        let asked = fcntl(probe, Self.ofdGetLock, &lock)
        #expect(asked == 0)
        #expect(lock.l_type != Int16(F_UNLCK), "SQLite's lock on byte 128 is still held")
        // Closing the probe lets go of the process's locks on the file, as closing any descriptor of it would:
        // done last, with the test over.
        withExtendedLifetime((store, marks)) { _ = close(probe) }
    }

    /// `F_OFD_GETLK` (Linux's open-file-description lock query).
    private static let ofdGetLock: Int32 = 36

    @Test func aConnectionWithoutWALHasNoHeader() throws {
        let path = fixture.directory.file("plain.db")
        let connection = try SQLiteConnection(path: path)
        _ = try connection.scalarText("PRAGMA journal_mode = DELETE")
        _ = try connection.scalarText("CREATE TABLE t (x)")
        _ = try connection.scalarText("SELECT count(*) FROM t")
        #expect(SQLiteWALIndexHeader(of: connection) == nil)
    }

    @Test func theMarksReadTheHeaderAfterTheirFirstReadAndStillMoveWithEveryCommit() async throws {
        let store = try fixture.open()
        let other = try fixture.open()
        try await store.add(Self.item, data: SecretBytes(utf8: "one"))
        let marks = SQLiteChangeMarks(path: fixture.path, connections: 1)
        let first = try #require(marks.mark(waiting: true))
        #expect(!marks.readsHeader, "the first read asks SQLite")
        #expect(marks.mark(waiting: false) == first, "nothing committed: the switch to the header moves nothing")
        #expect(marks.readsHeader)
        _ = try await other.find(Self.item, limit: .one, returning: .data)
        #expect(marks.mark(waiting: false) == first)
        var last = first
        for value in ["two", "three", "four"] {
            try await other.update(Self.item, attributes: nil, data: SecretBytes(utf8: value))
            let moved = try #require(marks.mark(waiting: false))
            #expect(moved != last, "a commit moves the mark")
            #expect(marks.mark(waiting: false) == moved, "and it stays until the next")
            last = moved
        }
        try await store.delete(Self.item)
        #expect(marks.mark(waiting: false) != last)
    }
}
