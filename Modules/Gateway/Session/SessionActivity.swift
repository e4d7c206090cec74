import Data
import Domain
import Foundation

/// When each session was last used, for the gateway's idle timeout: an item beside the session's own
/// (deleted with them), written at most once per ``interval`` so that a busy session does not write the
/// store on every call, and read only when this process's own record of it does not already show the
/// session in use (so a busy session does not read it on every call either).
struct SessionActivity {
    let store: any SecureItemStore
    let now: @Sendable () -> Date
    /// How old the record of use may grow before a use writes it again, in seconds.
    let interval: TimeInterval
    /// The uses this process recorded.
    let recent = RecentUses(capacity: 100_000)

    /// The record of a session's last use: when, if known.
    struct Use {
        let at: Date?
    }

    private func item(_ cookie: SessionCookie) -> ItemAttributes {
        Self.item(cookie.account, in: store)
    }

    /// The item of `account`'s last use in `store`.
    static func item(_ account: AccountName, in store: any SecureItemStore) -> ItemAttributes {
        .genericPassword(
            service: SecureStoreSessionRepository.service(for: account), account: "last-used",
            accessGroup: store.accessGroups.first)
    }

    /// The last use of `account`'s session that `store` records, if any can be read.
    static func storedUse(_ account: AccountName, in store: any SecureItemStore) async -> Date? {
        guard case .found(let found) = await store.lookup(item(account, in: store)) else { return nil }
        return date(found)
    }

    /// The time a record of use holds, if it holds one.
    static func date(_ record: StoredItem) -> Date? {
        guard let text = record.data?.revealedString(), let seconds = Double(text) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Every record of use in `store`, by the service it sits in (one query), for a sweep.
    /// - Throws: ``AuthenticationError`` when the store cannot be read: a sweep must not take a record it
    ///   could not read for one that is missing.
    static func storedUses(in store: any SecureItemStore) async throws(AuthenticationError) -> [String: StoredItem] {
        let records: [StoredItem]
        do throws(SecureStoreError) {
            records = try await store.find(
                .genericPassword(account: "last-used", accessGroup: store.accessGroups.first), limit: .all, returning: .all)
        } catch .itemNotFound {
            return [:]
        } catch {
            throw .fromStore(error)
        }
        var byService: [String: StoredItem] = [:]
        for record in records {
            if let service = record.attributes?.string(.service) { byService[service] = record }
        }
        return byService
    }

    /// The session's last recorded use (`at` is `nil` when none is recorded, or it cannot be read): the
    /// latest this process knows of when that is less than `timeout` old (the session is not idle then,
    /// whatever the store holds), else the store's, which this process then knows of too. (Without that, a
    /// process that had not written the record itself, restarted or one of many instances, read the store
    /// at every call until its own next write, up to ``interval`` later.)
    func lastUse(_ cookie: SessionCookie, timeout: TimeInterval) async -> Use {
        let known = recent.recordedUse(of: cookie.sessionID)
        if let known, now().timeIntervalSince(known) <= timeout { return Use(at: known) }
        guard let stored = await Self.storedUse(cookie.account, in: store) else { return Use(at: known) }
        recent.noteRead(cookie.sessionID, at: stored)
        return Use(at: known.map { max($0, stored) } ?? stored)
    }

    /// Whether `use` is more than `timeout` old now.
    func isIdle(_ use: Use, timeout: TimeInterval) -> Bool {
        use.at.map { now().timeIntervalSince($0) > timeout } ?? false
    }

    /// Records a use now, unless `previous` is less than ``interval`` old.
    func record(_ cookie: SessionCookie, after previous: Use) async {
        if let at = previous.at, now().timeIntervalSince(at) < interval { return }
        let used = now()
        do throws(SecureStoreError) {
            try await store.addOrUpdate(item(cookie), string: String(Int64(used.timeIntervalSince1970)))
            // What the store now holds (whole seconds), so that this process never trusts a later time.
            recent.noteRecorded(cookie.sessionID, at: Date(timeIntervalSince1970: used.timeIntervalSince1970.rounded(.down)))
        } catch {
            // Not recorded: the next use tries again.
        }
    }

    /// Forgets what this process recorded of `cookie`'s session (it ended).
    func forget(_ cookie: SessionCookie) {
        recent.forget(cookie.sessionID)
    }
}
