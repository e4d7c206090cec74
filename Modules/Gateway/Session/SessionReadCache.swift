#if canImport(Glibc)
    import Glibc
#endif
import Data
import Domain
import Locking
import Synchronization

/// Sessions as last read and opened, kept in memory only while nothing has been committed to the store
/// since: a call whose session was read after the store's last commit (by this process or any other, a
/// sign-out, a back-channel logout, a refresh, an operator's revoke) gets the same session without
/// reading and opening it again; after any commit, every entry is dropped at the next call and each
/// session is read again. The store tells through its change mark (``SecureItemStore/changeMark(waiting:)``):
/// SQLite's, a read of its shared-memory version, about 2 µs, asked on the calling thread when the handle
/// is free and on the store's threads when it is busy; a store that never gave one (PostgreSQL, where
/// another instance's write cannot be seen without a round trip) is read every time.
///
/// An entry is keyed by the session id and found only with the key the cookie's secret derives, compared
/// in constant time: a forged cookie naming a cached session reads the store as before, and is refused
/// there. Bounded: past `capacity` sessions the entries start over. A session this instance ends is
/// dropped at once; one ended elsewhere at the next call after the commit, or at the next sweep
/// (``forgetAll()``) when no call comes.
final class SessionReadCache: Sendable {
    private struct Entry {
        let key: SecretBytes
        let session: Session
    }

    private struct Kept {
        var mark: UInt64?
        var entries: [String: Entry] = [:]
        /// The latest mark read from the store, and when its read began.
        var lastRead: (mark: UInt64, began: ContinuousClock.Instant)?
    }

    private let store: any SecureItemStore
    private let capacity: Int
    private let kept = Locked(Kept())
    private let counted: @Sendable (_ fromMemory: Bool) -> Void
    /// Whether the store ever gave a mark: only then is a busy handle waited for.
    private let givesMarks = Atomic(false)

    /// A cache of the sessions read from `store`, at most `capacity` of them; `counted` hears of each
    /// read, whether it came from memory.
    init(
        store: any SecureItemStore, capacity: Int, counted: @escaping @Sendable (_ fromMemory: Bool) -> Void = { _ in }
    ) {
        self.store = store
        self.capacity = capacity
        self.counted = counted
    }

    /// Session `sessionID`, opened with `key`: from memory when it was read with the same key since the
    /// store's last commit, else from `load`, and then kept (`nil`, no session or one `key` does not open,
    /// is not).
    ///
    /// `received` is when the request this read serves was read whole, if it serves one: a mark whose read
    /// began after that (another request's, read by the same server at once, say) tells of every commit
    /// that ended before the request arrived, so it is used instead of reading one more. Without it, a mark
    /// is read now.
    func session(
        _ sessionID: String, key: SecretBytes, received: ContinuousClock.Instant? = nil,
        load: () async throws(AuthenticationError) -> Session?
    ) async throws(AuthenticationError) -> Session? {
        // The mark is taken before the read: a commit after it, seen or not by the read, moves the mark,
        // and the entry is never used.
        guard let mark = await mark(since: received) else {
            counted(false)
            return try await load()
        }
        let found = kept.withLock { memory -> Session? in
            if memory.mark != mark {
                memory.mark = mark
                memory.entries.removeAll()
                return nil
            }
            guard let entry = memory.entries[sessionID], entry.key.constantTimeEquals(key) else { return nil }
            return entry.session
        }
        counted(found != nil)
        if let found { return found }
        guard let session = try await load() else { return nil }
        kept.withLock { memory in
            // Kept only in the generation it was read in; one that moved on since drops it. (A cookie that
            // opened nothing leaves the entry of the one that did: a forged cookie cannot push it out.)
            guard memory.mark == mark else { return }
            if memory.entries[sessionID] == nil, memory.entries.count >= capacity { memory.entries.removeAll() }
            memory.entries[sessionID] = Entry(key: key, session: session)
        }
        return session
    }

    /// Drops session `sessionID` (this instance ended it: its tokens leave memory now, not at the next call).
    func forget(_ sessionID: String) {
        kept.withLock { $0.entries[sessionID] = nil }
    }

    /// Drops every session kept (the periodic sweep does, so that an instance no call reaches lets go of
    /// sessions ended elsewhere).
    func forgetAll() {
        kept.withLock { $0.entries.removeAll() }
    }

    /// The store's change mark as of a moment after `received`: the latest one read, when its read began
    /// after `received`, else one read now (and then the latest).
    private func mark(since received: ContinuousClock.Instant?) async -> UInt64? {
        if let received, let last = kept.withLock({ $0.lastRead }), last.began >= received { return last.mark }
        let began = ContinuousClock.now
        guard let mark = await readMark() else { return nil }
        kept.withLock { memory in
            if memory.lastRead.map({ $0.began < began }) ?? true { memory.lastRead = (mark, began) }
        }
        return mark
    }

    /// The store's change mark read now: asked without waiting, a few times when the handle was busy
    /// (another thread's mark read holds it for a few microseconds, far less than a hop to the store's
    /// threads and back costs), then, while it stays busy (and the store gives marks at all), on the
    /// store's threads, which may wait for it.
    private func readMark() async -> UInt64? {
        for attempt in 0..<Self.tries {
            if let mark = store.changeMark(waiting: false) {
                givesMarks.store(true, ordering: .relaxed)
                return mark
            }
            guard givesMarks.load(ordering: .relaxed) else { return nil }
            if attempt + 1 < Self.tries { sched_yield() }
        }
        let store = store
        return await StoreThreads.run { store.changeMark(waiting: true) }
    }

    /// How many times the mark is asked for on the calling thread before the store's threads wait for it.
    private static let tries = 4
}
