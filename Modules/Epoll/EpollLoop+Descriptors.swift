internal import CEpoll
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The descriptors a loop watches: each calls its handler on the loop's thread while ready.
extension EpollLoop {
    /// What a watched descriptor is ready for.
    package struct Events: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Bytes to read, a connection to accept, or the peer's end.
        package static let readable = Events(rawValue: hardtack_epoll_readable)
        /// Room to write.
        package static let writable = Events(rawValue: hardtack_epoll_writable)
        /// The peer hung up or the descriptor failed (always reported, whatever was asked).
        package static let closed = Events(rawValue: hardtack_epoll_closed)
    }

    /// A descriptor's handler.
    final class Watcher {
        let handler: (Events) -> Void
        var events: Events
        init(handler: @escaping (Events) -> Void, events: Events) {
            self.handler = handler
            self.events = events
        }
    }

    /// Calls `handler` on the loop's thread whenever `descriptor` is ready for any of `events` (level-
    /// triggered: again at each pass while it stays ready), or closed. `false` when the kernel refused it
    /// (the descriptor is not one epoll watches, or is watched already). A watched descriptor does not keep
    /// the thread past its linger (an idle kept connection must not): ``hold()`` the loop while its
    /// readiness must be heard at once. Loop's thread only.
    package func watch(_ descriptor: Int32, for events: Events, _ handler: @escaping (Events) -> Void) -> Bool {
        precondition(isCurrent, "EpollLoop.watch is for the loop's thread")
        guard descriptor >= 0, hardtack_epoll_add(epoll, descriptor, events.rawValue) == 0 else { return false }
        if watchers.count <= Int(descriptor) {
            watchers += Array(repeating: nil, count: Int(descriptor) + 1 - watchers.count)
        }
        watchers[Int(descriptor)] = Watcher(handler: handler, events: events)
        return true
    }

    /// Changes what `descriptor`, watched, is waited for; `false` when the kernel no longer has it (it was
    /// closed, and its number maybe reused) and it cannot be added again: it is then no longer watched.
    /// Loop's thread only.
    @discardableResult
    package func change(_ descriptor: Int32, to events: Events) -> Bool {
        precondition(isCurrent, "EpollLoop.change is for the loop's thread")
        guard descriptor >= 0, Int(descriptor) < watchers.count, let watcher = watchers[Int(descriptor)] else {
            return false
        }
        guard watcher.events != events else { return true }
        if hardtack_epoll_modify(epoll, descriptor, events.rawValue) == 0
            || (errno == ENOENT
                && hardtack_epoll_add(epoll, descriptor, events.rawValue) == 0)
        {
            watcher.events = events
            return true
        }
        watchers[Int(descriptor)] = nil
        return false
    }

    /// Stops watching `descriptor` (before it is closed; a descriptor closed first is forgotten by the
    /// kernel, and this then only forgets its handler). Loop's thread only.
    package func unwatch(_ descriptor: Int32) {
        precondition(isCurrent, "EpollLoop.unwatch is for the loop's thread")
        guard descriptor >= 0, Int(descriptor) < watchers.count, watchers[Int(descriptor)] != nil else { return }
        watchers[Int(descriptor)] = nil
        _ = hardtack_epoll_remove(epoll, descriptor)
    }

    /// Whether `descriptor` is watched. Loop's thread only.
    package func isWatching(_ descriptor: Int32) -> Bool {
        descriptor >= 0 && Int(descriptor) < watchers.count && watchers[Int(descriptor)] != nil
    }
}
