/// What a caller is kept waiting for, so that a person can be told after a moment instead of watching a
/// silent terminal (a command line says it on standard error).
public enum WaitReason: Sendable, Equatable {
    /// The auth server has not answered yet.
    case serverReply
    /// Another process holds the claim to refresh the session; its tokens are awaited.
    case anotherProcessRefresh
    /// Another process holds the store's lock.
    case storeLock
}
