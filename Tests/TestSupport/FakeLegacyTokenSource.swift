public import Domain

/// A legacy token file in memory that can be told to fail its deletion once, as if the process were
/// killed between storing the tokens and deleting the file.
public final class FakeLegacyTokenSource: LegacyTokenSource {
    private struct State {
        var contents: LegacyTokens
        var failNextDelete = false
    }

    private let state: Locked<State>

    /// Starts with `contents`.
    public init(_ contents: LegacyTokens) {
        state = Locked(State(contents: contents))
    }

    /// Whether the file still exists (holds tokens or zeros).
    public var exists: Bool {
        state.withLock { if case .absent = $0.contents { false } else { true } }
    }

    /// Makes the next wipe-and-delete stop after wiping, as a kill would.
    public func failNextDelete() { state.withLock { $0.failNextDelete = true } }

    public func read() async throws(AuthenticationError) -> LegacyTokens { state.withLock { $0.contents } }

    public func wipeAndDelete() async throws(AuthenticationError) {
        let killed = state.withLock { state in
            if state.failNextDelete {
                state.failNextDelete = false
                state.contents = .wiped
                return true
            }
            state.contents = .absent
            return false
        }
        if killed { throw .storageFailed("killed after wiping") }
    }
}
