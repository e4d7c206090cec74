#if canImport(Glibc)
    import Glibc
#endif
import Data
import Foundation
import Domain
import StoreCore
import TestSupport
import Synchronization
import Testing

/// The store's change mark (``SecureItemStore/changeMark(waiting:)``): it stays the same while nothing is
/// committed and moves with every commit, this handle's or another's; it is never a stale "same". A store
/// that cannot tell (PostgreSQL) says so with `nil`, always.
@Suite struct ChangeMarkTests {
    private static let item = ItemAttributes.genericPassword(service: "mark", account: "alice")

    /// Whether the adapter gives marks at all.
    private static func givesMarks(_ adapter: StoreAdapter) -> Bool { adapter.name != StoreAdapter.postgreSQL.name }

    @Test(arguments: StoreAdapter.all)
    func theMarkStaysWhileNothingIsCommittedAndMovesWithEachCommit(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let first = try fixture.open(durability: .normal)
        let second = try fixture.open(durability: .normal)
        try first.add(Self.item, data: secret("one"))
        let before = first.changeMark(waiting: false)
        guard Self.givesMarks(adapter) else {
            #expect(before == nil)
            #expect(first.changeMark(waiting: true) == nil)
            return
        }
        let start = try #require(before)
        // Reads, by this handle or another, change nothing.
        _ = try first.findString(Self.item)
        _ = try second.findString(Self.item)
        #expect(first.changeMark(waiting: false) == start)
        #expect(first.changeMark(waiting: true) == start)
        // Another handle's commit moves it.
        try second.update(Self.item, attributes: nil, data: secret("two"))
        let afterForeign = try #require(first.changeMark(waiting: false))
        #expect(afterForeign != start)
        // So does this handle's own.
        try first.update(Self.item, attributes: nil, data: secret("three"))
        let afterOwn = try #require(first.changeMark(waiting: false))
        #expect(afterOwn != afterForeign)
        // A transaction that wrote, and a delete.
        try second.transaction { transaction in try transaction.add(.genericPassword(service: "mark", account: "bob"), data: secret("b")) }
        let afterTransaction = try #require(first.changeMark(waiting: false))
        #expect(afterTransaction != afterOwn)
        try second.delete(Self.item)
        #expect(first.changeMark(waiting: false) != afterTransaction)
    }

    @Test(arguments: StoreAdapter.all)
    func aLockedStoreGivesNoMark(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open(durability: .normal)
        try store.add(Self.item, data: secret("one"))
        store.lock()
        #expect(store.changeMark(waiting: false) == nil)
        #expect(store.changeMark(waiting: true) == nil)
    }

    @Test func onSQLiteAMarkIsGivenWhileTheHandleIsBusyAndMovesWithItsCommit() async throws {
        // The marks are read through connections of their own: a thread asking while the handle is inside
        // another thread's transaction gets one at once, without waiting, and the commit moves it.
        let fixture = try ConformanceFixture(.sqlite)
        let store = try fixture.open(durability: .normal)
        try await store.add(Self.item, data: secret("one"))
        let before = try #require(store.changeMark(waiting: false))
        final class Flags: Sendable {
            let inside = Atomic(false)
            let proceed = Atomic(false)
            let done = Atomic(false)
        }
        let flags = Flags()
        Thread {
            _ = try? store.transaction { transaction in
                try transaction.update(Self.item, attributes: nil, data: secret("two"))
                flags.inside.store(true, ordering: .releasing)
                while !flags.proceed.load(ordering: .acquiring) { usleep(1000) }
            }
            flags.done.store(true, ordering: .releasing)
        }.start()
        while !flags.inside.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
        // Busy with the other thread's transaction, not yet committed: the same mark, given at once.
        #expect(store.changeMark(waiting: false) == before)
        flags.proceed.store(true, ordering: .releasing)
        while !flags.done.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
        let after = try #require(store.changeMark(waiting: false))
        #expect(after != before)
    }

    @Test(arguments: StoreAdapter.all)
    func insideItsOwnTransactionAHandleGivesNoMarkAndDoesNotDeadlock(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open(durability: .normal)
        let marks = try store.transaction { transaction in
            try transaction.add(Self.item, data: secret("one"))
            return (store.changeMark(waiting: false), store.changeMark(waiting: true))
        }
        #expect(marks.0 == nil)
        #expect(marks.1 == nil)
    }
}
