import Data
import Domain
import Foundation
import Locking

/// The refresher of each session in use, so that every call of one session in this process shares one
/// ``RefreshSession`` (and so one refresh in flight). Bounded: past `capacity` sessions the least recently
/// used is dropped (a later call makes a new one; the store's claim still keeps refreshes to one per
/// generation). Keyed by the session id and a fingerprint of the cookie's secret, so a forged cookie
/// naming a real session never shares the real one's refresher.
final class RefresherCache: Sendable {
    private struct Entry {
        let refresher: RefreshSession
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The refresher for `cookie`'s session, made by `make` the first time.
    func refresher(for cookie: SessionCookie, make: () -> RefreshSession) -> RefreshSession {
        let key = Self.key(cookie)
        return state.withLock { state in
            state.clock += 1
            if var entry = state.entries[key] {
                entry.lastUse = state.clock
                state.entries[key] = entry
                return entry.refresher
            }
            if state.entries.count >= capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
            }
            let made = make()
            state.entries[key] = Entry(refresher: made, lastUse: state.clock)
            return made
        }
    }

    /// Drops the refresher of `cookie`'s session (it signed out).
    func forget(_ cookie: SessionCookie) {
        forget(sessionID: cookie.sessionID)
    }

    /// Drops every refresher of the session `sessionID`.
    func forget(sessionID: String) {
        state.withLock { state in
            state.entries = state.entries.filter { !$0.key.hasPrefix(sessionID + ".") }
        }
    }

    private static func key(_ cookie: SessionCookie) -> String {
        cookie.refresherKey
    }
}
