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
        let header = try #require(SQLiteWALIndexHeader(databasePath: fixture.path))
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

    @Test func aStoreWithoutSharedMemoryOrWithAnUnknownOneHasNoHeader() throws {
        // No `-shm` file at all.
        #expect(SQLiteWALIndexHeader(databasePath: fixture.directory.file("none.db")) == nil)
        // One too short to hold a header (SQLite truncates it to 3 bytes when it starts afresh).
        let short = fixture.directory.file("short.db")
        try Data([0, 0, 0]).write(to: URL(fileURLWithPath: short + "-shm"))
        #expect(SQLiteWALIndexHeader(databasePath: short) == nil)
        // One whose version is not SQLite's, and one SQLite has not initialised.
        let unknown = fixture.directory.file("unknown.db")
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: unknown + "-shm"))
        #expect(SQLiteWALIndexHeader(databasePath: unknown) == nil)
        let blank = fixture.directory.file("blank.db")
        try Data(count: 4096).write(to: URL(fileURLWithPath: blank + "-shm"))
        #expect(SQLiteWALIndexHeader(databasePath: blank) == nil)
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
