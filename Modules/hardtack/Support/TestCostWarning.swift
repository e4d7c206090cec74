import Composition
import StoreCore

/// The one line said when a passphrase is wrapped at Argon2id's test cost (`HARDTACK_ARGON2_COST=
/// interactive`): the variable exists so that tests run fast, and a real store made or rekeyed under it
/// would be cheaper to guess without anyone having said so.
enum TestCostWarning {
    /// Says, on standard error, that the passphrase `configuration` protects was just wrapped at the test
    /// cost, when it was (nothing otherwise).
    static func announce(_ configuration: StoreConfiguration) {
        announce(cost: configuration.options.passphraseCost)
    }

    /// Says so when `cost` is the test cost.
    static func announce(cost: Argon2Cost) {
        guard cost == .interactive else { return }
        Console.error(
            "warning: \(StoreConfiguration.passphraseCostVariable)=interactive: this passphrase is protected at "
                + "Argon2id's test cost (2 passes, 64 MiB: about 6 times cheaper to guess than the default); "
                + "for a real store, unset it and change the passphrase")
    }
}
