import Foundation

extension FaultProxy {
    /// One refresh request seen: who sent it (when the candidates are known) and when it was under way.
    struct RefreshRecord: Sendable {
        /// The candidate that sent it, 0 when unknown.
        let sender: pid_t
        /// When it arrived.
        let started: Date
        /// When its answer was sent (or the sender killed), `nil` while under way.
        var ended: Date?
    }
}
