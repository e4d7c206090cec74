import TestSupport
import Testing

/// One adapter of the ``ItemStorage`` port, by name, and how to make a fresh store of it. Every
/// conformance test runs once per adapter in ``all``.
struct StoreAdapter: Sendable, CustomTestStringConvertible {
    /// The adapter's name, shown in test results.
    let name: String
    /// Makes a new, empty store; `scratch` is the test's private directory (for files such as key
    /// files and, for SQLite, the store itself), removed when the test ends.
    let makeStore: @Sendable (_ scratch: TemporaryDirectory) throws -> StoreLocation

    var testDescription: String { name }

    /// Every adapter the conformance suite runs against.
    static let all: [StoreAdapter] = [
        .sqlite,
        .memory,
        .postgreSQL,
    ]
}
