import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

/// `worker pg-contender`: ``ContentionWorker`` on a PostgreSQL store: threads doing read-modify-write
/// on shared counters, each in one transaction, until a deadline; half the threads open a handle (a
/// connection) of their own, half share one. Prints one ``ContentionWorker/Report`` as JSON.
///
/// The URI comes in `HARDTACK_TORTURE_PG`; arguments: `--key HEX`, `--threads N`, `--counters N`,
/// `--seconds N`, `--start EPOCH`, `--seed N`.
enum PGContentionWorker {
    /// Runs the worker; returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let options = TrialArguments(arguments)
        guard let uri = ProcessInfo.processInfo.environment["HARDTACK_TORTURE_PG"],
            let key = options["key"].flatMap({ bytes(fromHex: $0) })
        else { return 2 }
        let source = KeySource.key(SecretBytes(key))
        return ContentionWorker.contend(options, threads: 3) {
            try PostgreSQLSecureItemStore.open(uri: uri, keySource: source)
        }
    }
}
