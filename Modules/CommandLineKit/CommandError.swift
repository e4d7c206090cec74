/// Why a command stopped: the process exit status and one line for standard error (without the
/// program-name prefix), which must never hold a secret.
public struct CommandError: Error, Sendable, Equatable {
    /// The exit status.
    public let status: Int32
    /// The message.
    public let message: String

    /// Creates an error.
    public init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }
}
