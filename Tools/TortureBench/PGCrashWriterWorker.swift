import BenchSupport
import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `worker pg-writer`: writes to a PostgreSQL store until it is killed: each write is one transaction
/// that replaces its slot's token pair (access and refresh items, both naming the write's sequence
/// number) and adds a log item for that number. It prints `A seq` once the commit has returned, and
/// `E seq kind` for a write that failed (the server may be down: it carries on with the next one).
///
/// The store's URI comes in `HARDTACK_TORTURE_PG` (so that its password is not in `ps`); arguments:
/// `--key HEX`, `--slot N`, `--base N` (the first sequence number is `base + 1`), `--seed N`.
enum PGCrashWriterWorker {
    /// The service of the log items; their accounts are `sSLOT-SEQ`.
    static let logService = "pg-crash-log"

    /// The service of a slot's token pair (accounts `access` and `refresh`).
    static func pairService(_ slot: Int) -> String { "pg-crash-pair-\(slot)" }

    /// The sequence number in a token (`acc.SEQ.hex`), or `nil`.
    static func sequence(in token: String) -> Int? {
        token.split(separator: ".").dropFirst().first.flatMap { Int($0) }
    }

    /// Runs the worker; returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let options = TrialArguments(arguments)
        guard let uri = ProcessInfo.processInfo.environment["HARDTACK_TORTURE_PG"],
            let key = options["key"].flatMap({ bytes(fromHex: $0) })
        else { return 2 }
        let slot = options.int("slot")
        var sequence = options.int("base")
        var random = SeededGenerator(seed: options.seed)
        var store: PostgreSQLSecureItemStore?
        while true {
            guard let handle = store ?? (try? PostgreSQLSecureItemStore.open(uri: uri, keySource: .key(SecretBytes(key))))
            else {
                // The server is restarting: try again shortly.
                usleep(20_000)
                continue
            }
            store = handle
            sequence += 1
            let access = "acc.\(sequence).\(random.hex(16))"
            let refresh = "ref.\(sequence).\(random.hex(16))"
            do {
                try handle.transaction { transaction in
                    try transaction.addOrUpdate(
                        .genericPassword(service: pairService(slot), account: "access"), data: SecretBytes(utf8: access))
                    try transaction.addOrUpdate(
                        .genericPassword(service: pairService(slot), account: "refresh"), data: SecretBytes(utf8: refresh))
                    try transaction.add(
                        .genericPassword(service: logService, account: "s\(slot)-\(sequence)"),
                        data: SecretBytes(utf8: "\(sequence)"))
                }
                emit("A \(sequence)")
            } catch let error as SecureStoreError {
                emit("E \(sequence) \(StoreReading.kind(of: error))")
                usleep(10_000)
            } catch {
                emit("E \(sequence) other")
                usleep(10_000)
            }
        }
    }
}
