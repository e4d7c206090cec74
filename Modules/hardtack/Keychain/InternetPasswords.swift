/// Internet passwords, for the `*-internet-password` verbs.
enum InternetPasswords: PasswordClass {
    static let kind = PasswordKind.internet
}
