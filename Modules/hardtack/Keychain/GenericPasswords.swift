/// Generic passwords, for the `*-generic-password` verbs.
enum GenericPasswords: PasswordClass {
    static let kind = PasswordKind.generic
}
