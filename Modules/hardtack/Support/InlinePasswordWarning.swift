import Composition
import Synchronization

/// The one warning line for a database password given on the command line (`--store`, salvage's
/// `--to`): other users of this machine read it in `ps` and `/proc/PID/cmdline` while the command runs.
/// It names the option, never the password, and is printed once per process.
enum InlinePasswordWarning {
    /// Whether the warning was printed.
    private static let printed = Atomic(false)

    /// The warning for a password in `option`'s URI.
    static func text(option: String) -> String {
        "warning: the password in the \(option) URI is visible to other users of this machine (ps, /proc/PID/cmdline); "
            + "leave it out and keep it in ~/.pgpass (or the file PGPASSFILE names) or PGPASSWORD"
            + (option == "--store" ? ", or give the whole URI with --store-file FILE (mode 0600)" : "")
    }

    /// Prints the warning on standard error when `location`, given as `option` on the command line, is a
    /// PostgreSQL URI with a password, unless it was printed already.
    static func check(_ location: String, option: String) {
        guard StoreConfiguration.holdsPassword(location) else { return }
        if !printed.exchange(true, ordering: .acquiringAndReleasing) { Console.error(text(option: option)) }
    }
}
