/// Waiting in a test for what should come: a bound only against a hang, since under a sanitizer on a busy
/// machine what takes milliseconds can take seconds.
public enum Eventually {
    /// Checks `done` every `interval` (sleeping as a task in between) until it holds or `bound` has passed;
    /// whether it held. The caller's own `#expect` then says what was last seen.
    public static func wait(
        bound: Duration = .seconds(60), every interval: Duration = .milliseconds(20),
        until done: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: bound)
        while true {
            if try await done() { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: interval)
        }
    }
}
