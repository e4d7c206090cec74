/// A password class as a type, so each verb of each class is a command type of its own
/// (`AddPasswordVerb<GenericPasswords>`).
protocol PasswordClass: Sendable {
    /// The class.
    static var kind: PasswordKind { get }
}
