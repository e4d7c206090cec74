/// An account on the embedded auth server. Its `description` and mirror leave the password out.
public struct AuthServerUser: Sendable {
    /// The sign-in name, which is also the user's id (`sub`).
    public var username: String
    /// The password, compared in constant time.
    public var password: String
    /// The display name returned as `name` and `nickname`.
    public var displayName: String

    /// Creates an account.
    public init(username: String, password: String, displayName: String) {
        self.username = username
        self.password = password
        self.displayName = displayName
    }

    /// The demo account: `alice` / `wonderland`, "Alice Liddell".
    public static let alice = AuthServerUser(username: "alice", password: "wonderland", displayName: "Alice Liddell")
}

extension AuthServerUser: CustomStringConvertible, CustomReflectable {
    /// The username and display name; never the password.
    public var description: String { "AuthServerUser(\(username), \"\(displayName)\", password redacted)" }
    /// A mirror without the password, so `dump` and nested descriptions cannot print it.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "displayName": displayName])
    }
}
