import Data
import Domain

/// Why a command stopped early: each case knows its exit status and its one-line message, which never
/// holds a secret.
enum CommandFailure: Error {
    /// The command line was wrong; the message says what and where to find help.
    case usage(String)
    /// The store refused or failed.
    case store(SecureStoreError)
    /// Signing in, refreshing or an authorized call failed.
    case auth(AuthenticationError)
    /// The command ran but its finding calls for this status (a damaged store, say).
    case finding(ExitStatus, String)

    /// The process exit status for this failure.
    var status: ExitStatus {
        switch self {
        case .usage: .usage
        case .store(let error): ExitStatus(error)
        case .auth(let error): ExitStatus(error)
        case .finding(let status, _): status
        }
    }

    /// The message for standard error, without the `hardtack: ` prefix.
    var message: String {
        switch self {
        case .usage(let message): message
        case .store(let error): error.description
        case .auth(let error): error.description
        case .finding(_, let message): message
        }
    }
}
