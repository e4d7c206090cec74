import Data

/// The exit statuses of every hardtack command, and the one place store errors map to them.
enum ExitStatus: Int32, Sendable {
    /// It worked.
    case success = 0
    /// Anything not listed below (permissions, I/O, a bad attribute).
    case failure = 1
    /// The command line was wrong: an unknown command or option, a missing value, a bad port.
    case usage = 2
    /// No item matched.
    case notFound = 44
    /// An item with the same unique key exists.
    case duplicate = 45
    /// The store is damaged or was tampered with.
    case damaged = 65
    /// The passphrase or key does not unlock the store, or cannot be used.
    case wrongKey = 77

    /// The status for a store error.
    init(_ error: SecureStoreError) {
        switch error {
        case .itemNotFound: self = .notFound
        case .duplicateItem: self = .duplicate
        case .integrityFailure: self = .damaged
        case .wrongKey, .keySourceMismatch, .invalidKeyMaterial: self = .wrongKey
        case .attributeNotAllowed, .invalidAttributeValue, .readOnlyAttribute, .classMismatch, .missingEntitlement,
            .invalidData, .locked, .insecurePermissions, .storage:
            self = .failure
        }
    }
}
