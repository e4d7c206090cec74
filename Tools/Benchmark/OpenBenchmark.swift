import Domain
import SQLiteStore
import StoreCore

/// The time to open and unlock an existing store: with a key file (the everyday case) and with a
/// passphrase (Argon2id at MODERATE, a deliberate security floor).
enum OpenBenchmark {
    /// The passphrase cost measured; never below libsodium's MODERATE.
    static let passphraseCost = Argon2Cost.moderate

    /// Median milliseconds of `repeats` opens of a key-file store holding one item.
    static func keyFile(repeats: Int, directory: String) throws -> Double {
        let path = directory + "/open-keyfile.db"
        let source = KeySource.keyFile(path: path + ".key")
        do {
            let store = try SQLiteSecureItemStore.open(at: path, keySource: source)
            try store.add(.genericPassword(service: Workload.service, account: "open"), data: SecretBytes([1, 2, 3]))
        }
        return try median(repeats) { () throws -> SQLiteSecureItemStore in
            try SQLiteSecureItemStore.open(at: path, keySource: source)
        }
    }

    /// Median milliseconds of `repeats` opens of a passphrase store made at ``passphraseCost``.
    static func passphrase(repeats: Int, directory: String) throws -> Double {
        let path = directory + "/open-passphrase.db"
        let source = KeySource.passphrase(SecretBytes(utf8: "correct horse battery staple"))
        let options = StoreOptions(passphraseCost: passphraseCost)
        do {
            _ = try SQLiteSecureItemStore.open(at: path, keySource: source, options: options)
        }
        return try median(repeats) { () throws -> SQLiteSecureItemStore in
            try SQLiteSecureItemStore.open(at: path, keySource: source, options: options)
        }
    }

    /// Times `open` (releasing what it returns outside the timer) and returns the median in milliseconds.
    private static func median(_ repeats: Int, _ open: () throws -> SQLiteSecureItemStore) throws -> Double {
        var times: [Double] = []
        for _ in 0..<repeats {
            var store: SQLiteSecureItemStore?
            let elapsed = try MonotonicClock.time { store = try open() }
            withExtendedLifetime(store) {}
            store = nil
            times.append(Double(elapsed) / 1e6)
        }
        return times.sorted()[times.count / 2]
    }
}
