import CommandLineKit
import Composition
import Domain

/// `--account NAME`: whose session a command works on. Without it, the default account, which holds
/// sessions stored before accounts existed.
struct AccountOption: StaticOptionGroup {
    /// `--account NAME`.
    static let account = Option<String>(
        "--account", value: "NAME",
        help: "Whose session: a user id, an email, \"work\" (default: the default account). Stored exactly as given.",
        allowsEmpty: false)

    static let declarations: [any ArgumentDeclaring] = [account]

    /// The account named, or the default one.
    let name: AccountName

    init(from values: ParsedValues) throws(UsageError) {
        guard let text = try values.value(Self.account) else {
            name = .default
            return
        }
        guard let name = AccountName(text) else {
            throw UsageError(AccountName.problem(with: text) ?? "the account name cannot be used", commandPath: values.commandPath)
        }
        self.name = name
    }
}
