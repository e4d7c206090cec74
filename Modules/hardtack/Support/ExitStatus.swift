import CommandLineKit
import Data
import Domain

/// The exit statuses of every hardtack command, what each means (the one table help and the README
/// show), and the one place store and authentication errors map to them.
enum ExitStatus: Int32, Sendable, CaseIterable {
    /// It worked.
    case success = 0
    /// Anything not listed below (permissions, I/O, a bad attribute).
    case failure = 1
    /// The command line was wrong: an unknown command or option, a missing value, a bad port.
    case usage = 2
    /// Not signed in, or the session ended: the app shows its sign-in flow.
    case signedOut = 3
    /// The server refused the credentials.
    case credentialsRefused = 4
    /// No item matched.
    case notFound = 44
    /// An item with the same unique key exists.
    case duplicate = 45
    /// The store is damaged or was tampered with.
    case damaged = 65
    /// The auth server could not be reached or failed; the session is kept.
    case serverUnavailable = 69
    /// The store could not be read (locked or damaged), so whether a session exists is unknown.
    case storeUnavailable = 75
    /// The auth server's answer did not fit the contract, or it refused the request.
    case protocolError = 76
    /// The passphrase or key does not unlock the store, or cannot be used.
    case wrongKey = 77
    /// Interrupted (Ctrl-C) while waiting for the user in a browser or device sign-in (nothing was stored), or a
    /// gateway's stop cut short by a second SIGINT or SIGTERM.
    case interrupted = 130

    /// What the status means, as help and the README's table say it.
    var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "anything else"
        case .usage: "usage error"
        case .signedOut: "not signed in or the session ended (sign in again)"
        case .credentialsRefused: "credentials refused"
        case .notFound: "item not found"
        case .duplicate: "duplicate item"
        case .damaged: "damaged or tampered store"
        case .serverUnavailable: "server unavailable (the session is kept)"
        case .storeUnavailable: "store locked, busy or unreachable (the user is not signed out)"
        case .protocolError: "the server's answer broke the contract or refused even a fresh token (the session is kept)"
        case .wrongKey: "wrong passphrase or key"
        case .interrupted: "interrupted (Ctrl-C): a sign-in waiting for the user stored nothing; the gateway stopped at once by a second signal"
        }
    }

    /// Every status, in numeric order: `hardtack help exit-codes` prints it for the README.
    static let table = ExitStatusTable(allCases.map { ExitStatusTable.Row(status: $0.rawValue, meaning: $0.meaning) })

    /// The statuses the keychain verbs end with, as their help lists them.
    static let keychainTable = table.only(
        [success, usage, notFound, duplicate, damaged, storeUnavailable, wrongKey, failure].map(\.rawValue))

    /// The statuses the app commands end with, as their help lists them.
    static let appTable = table.only(
        [success, usage, signedOut, credentialsRefused, damaged, serverUnavailable, storeUnavailable, protocolError,
         wrongKey, interrupted, failure].map(\.rawValue))

    /// The status for a store error.
    init(_ error: SecureStoreError) {
        switch error {
        case .itemNotFound: self = .notFound
        case .duplicateItem: self = .duplicate
        case .integrityFailure: self = .damaged
        case .wrongKey, .keySourceMismatch, .invalidKeyMaterial: self = .wrongKey
        case .locked: self = .storeUnavailable
        case .storage(let failure) where [.unavailable, .busy, .conflict, .connectionLost, .timedOut].contains(failure.kind):
            // Worth trying again later: the store is there, it could not be reached or locked in time.
            self = .storeUnavailable
        case .attributeNotAllowed, .invalidAttributeValue, .readOnlyAttribute, .classMismatch, .missingEntitlement,
            .invalidData, .insecurePermissions, .storage:
            self = .failure
        }
    }

    /// The status for an authentication error.
    init(_ error: AuthenticationError) {
        switch error {
        case .notSignedIn, .sessionExpired, .refreshInterrupted: self = .signedOut
        case .unauthorized: self = .protocolError
        case .invalidCredentials: self = .credentialsRefused
        case .temporarilyUnavailable, .refreshStorm: self = .serverUnavailable
        case .storeUnavailable: self = .storeUnavailable
        case .storeDamaged: self = .damaged
        case .invalidResponse, .rejected: self = .protocolError
        case .storageFailed, .unsupported, .invalidLegacyFile: self = .failure
        }
    }
}
