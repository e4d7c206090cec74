import Domain
import Foundation

/// What `hardtack` says on standard error when it has been kept waiting a second, so that a wait of up
/// to 15 seconds never looks like a hang.
enum WaitMessage {
    /// The line for `reason`; `server` names the host being waited for.
    static func text(_ reason: WaitReason, server: URL?) -> String {
        switch reason {
        case .serverReply:
            "waiting for the server\(server?.host.map { " at \($0)" } ?? "") to answer (at most 15 s)…"
        case .anotherProcessRefresh:
            "waiting for another hardtack process that is refreshing the session (at most about 45 s)…"
        case .storeLock:
            "waiting for another process to release the store's lock (at most 10 s)…"
        }
    }

    /// A callback that prints the line for each reason once, on standard error.
    static func printer(server: URL?) -> @Sendable (WaitReason) -> Void {
        { reason in Console.error(text(reason, server: server)) }
    }
}
