internal import CSodium

/// The work factor of Argon2id for passphrase-protected stores, as libsodium names its presets.
public struct Argon2Cost: Sendable, Hashable {
    /// Passes over memory.
    public let opsLimit: UInt64
    /// Bytes of memory.
    public let memLimit: UInt64

    /// Creates a cost; values below libsodium's minimum are rejected when the store is created.
    public init(opsLimit: UInt64, memLimit: UInt64) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// libsodium's MODERATE (3 passes, 256 MiB): the default, about half a second here.
    public static let moderate = Argon2Cost(
        opsLimit: UInt64(crypto_pwhash_argon2id_OPSLIMIT_MODERATE),
        memLimit: UInt64(crypto_pwhash_argon2id_MEMLIMIT_MODERATE))
    /// libsodium's SENSITIVE (4 passes, 1 GiB).
    public static let sensitive = Argon2Cost(
        opsLimit: UInt64(crypto_pwhash_argon2id_OPSLIMIT_SENSITIVE),
        memLimit: UInt64(crypto_pwhash_argon2id_MEMLIMIT_SENSITIVE))
    /// libsodium's INTERACTIVE (2 passes, 64 MiB): below the default, for tests and throwaway stores.
    public static let interactive = Argon2Cost(
        opsLimit: UInt64(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE),
        memLimit: UInt64(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))

    /// The bounds a header's cost must fall in: at least INTERACTIVE (nothing weaker is ever written,
    /// so a weaker header was tampered with), at most 2 GiB and 16 passes, so a tampered header cannot
    /// make opening a store exhaust the machine.
    package var isWithinBounds: Bool {
        opsLimit >= Self.interactive.opsLimit && opsLimit <= 16
            && memLimit >= Self.interactive.memLimit && memLimit <= 2 << 30
    }
}
