import CommandLineKit
import Composition
import Domain

/// `--account NAME`: whose session a command works on. Without it, the default account, which holds
/// sessions stored before accounts existed.
struct AccountOption: ParsableArguments {
    /// `--account NAME`, as given.
    @Option(
        "--account", value: "NAME",
        help: "Whose session: a user id, an email, \"work\" (default: the default account). Stored exactly as given.",
        allowsEmpty: false)
    var given: String?

    /// The account named, or the default one.
    var name: AccountName { given.flatMap(AccountName.init) ?? .default }

    func validate() throws(UsageError) {
        if let given, let problem = AccountName.problem(with: given) { throw UsageError(problem) }
    }
}
