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

    /// The message for standard error, without the `hardtack: ` prefix; with `verbose`, a storage
    /// failure adds the backend's own words (result code, statement, errno), never a value.
    func message(verbose: Bool) -> String {
        switch self {
        case .usage(let message): return message
        case .store(let error):
            guard verbose, case .storage(let failure) = error, let detail = failure.detail else {
                return Advice.message(error)
            }
            return Advice.message(error) + " [\(failure.backend): \(detail)]"
        case .auth(let error): return Advice.message(error)
        case .finding(_, let message): return message
        }
    }
}
