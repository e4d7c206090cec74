import Data
import Domain
import Foundation

/// When each session was last used, for the gateway's idle timeout: an item beside the session's own
/// (deleted with them), written at most once per ``interval`` so that a busy session does not write the
/// store on every call.
struct SessionActivity {
    let store: any SecureItemStore
    let now: @Sendable () -> Date
    /// How old the record of use may grow before a use writes it again, in seconds.
    let interval: TimeInterval

    /// The record of a session's last use: when, if known.
    struct Use {
        let at: Date?
    }

    private func item(_ cookie: SessionCookie) -> ItemAttributes {
        .genericPassword(
            service: SecureStoreSessionRepository.service(for: cookie.account), account: "last-used",
            accessGroup: store.accessGroups.first)
    }

    /// The session's last recorded use (`at` is `nil` when none is recorded, or it cannot be read).
    func lastUse(_ cookie: SessionCookie) async -> Use {
        guard case .found(let found) = await store.lookup(item(cookie)), let text = found.data?.revealedString(),
            let seconds = Double(text)
        else { return Use(at: nil) }
        return Use(at: Date(timeIntervalSince1970: seconds))
    }

    /// Whether `use` is more than `timeout` old now.
    func isIdle(_ use: Use, timeout: TimeInterval) -> Bool {
        use.at.map { now().timeIntervalSince($0) > timeout } ?? false
    }

    /// Records a use now, unless `previous` is less than ``interval`` old.
    func record(_ cookie: SessionCookie, after previous: Use) async {
        if let at = previous.at, now().timeIntervalSince(at) < interval { return }
        _ = try? await store.addOrUpdate(item(cookie), string: String(Int64(now().timeIntervalSince1970)))
    }
}
