public import Data
import Domain
import Foundation
import PostgreSQLStore
import SQLiteStore
public import StoreCore

/// Everything needed to open the secure item store: where it is, what unlocks it, which access groups
/// the caller belongs to, and how durable and costly its writes are. The one place a store is opened.
public struct StoreConfiguration: Sendable {
    /// The variable that holds the passphrase when no passphrase file is given.
    public static let passphraseVariable = "HARDTACK_PASSPHRASE"
    /// The variable that names the store (a file path or a PostgreSQL URI) when the caller names none.
    public static let storeVariable = "HARDTACK_STORE"
    /// The access group used when none is named.
    public static let defaultAccessGroup = "default"

    /// The variable that may lower the Argon2id cost of a new passphrase, for tests only.
    public static let passphraseCostVariable = "HARDTACK_ARGON2_COST"

    /// The database file, or a `postgresql://` / `postgres://` URI (which may hold a password: show
    /// ``displayLocation`` instead).
    public var storePath: String
    /// What unlocks the store (and protects it when it is created).
    public var key: KeySource
    /// The caller's access groups; new items go to the first.
    public var accessGroups: [String]
    /// How the store is opened: durability, the Argon2id cost of a new passphrase, lock waits, and whether
    /// the caller only reads.
    public var options: StoreOptions

    /// Creates a configuration from explicit values.
    public init(
        storePath: String, key: KeySource, accessGroups: [String] = [defaultAccessGroup],
        options: StoreOptions = StoreOptions()
    ) {
        self.storePath = storePath
        self.key = key
        self.accessGroups = accessGroups
        self.options = options
    }

    /// Resolves what a caller named into a configuration: the store (named, else `HARDTACK_STORE`, else
    /// the default path), the key (named, else the passphrase in `HARDTACK_PASSPHRASE`, else the key file
    /// beside a store file, `<store>.key`), and the `default` access group.
    /// - Throws: ``SecureStoreError/invalidKeyMaterial(_:)`` for a PostgreSQL store with no key named (it
    ///   has no file beside it to keep one in).
    public static func resolve(
        storePath: String?, key named: KeySource?, accessGroups: [String], options: StoreOptions = StoreOptions(),
        environment: [String: String]
    ) throws(SecureStoreError) -> StoreConfiguration {
        let path = storePath ?? environment[storeVariable].flatMap { $0.isEmpty ? nil : $0 }
            ?? defaultStorePath(environment: environment)
        let key = named ?? environment[passphraseVariable].map { KeySource.passphrase(SecretBytes(utf8: $0)) }
        if isPostgreSQL(path), key == nil {
            throw .invalidKeyMaterial("a PostgreSQL store needs its key named explicitly (there is no file beside it)")
        }
        return StoreConfiguration(
            storePath: path, key: key ?? .keyFile(path: defaultKeyFile(forStore: path)),
            accessGroups: accessGroups.isEmpty ? [defaultAccessGroup] : accessGroups, options: options)
    }

    /// The Argon2id cost the environment asks for: MODERATE unless `HARDTACK_ARGON2_COST` says
    /// `interactive` (for tests only), or `nil` when the variable holds anything else.
    public static func passphraseCost(environment: [String: String]) -> Argon2Cost? {
        switch environment[passphraseCostVariable] {
        case nil, "", "moderate": .moderate
        case "interactive": .interactive
        default: nil
        }
    }

    /// `$XDG_DATA_HOME/hardtack/keychain.db`, or `~/.local/share/hardtack/keychain.db` when that
    /// variable is unset, empty or relative (as the XDG base-directory rules require).
    public static func defaultStorePath(environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/hardtack/keychain.db"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/hardtack/keychain.db"
    }

    /// The key file used when no key source is named: the store's path with `.key` appended.
    public static func defaultKeyFile(forStore storePath: String) -> String {
        storePath + ".key"
    }

    /// Whether `location` names a PostgreSQL store (`postgresql://…` or `postgres://…`) rather than a file.
    public static func isPostgreSQL(_ location: String) -> Bool {
        PostgreSQLSecureItemStore.isLocation(location)
    }

    /// Whether `location` is a PostgreSQL URI that carries a password itself (rather than leaving libpq
    /// to find it in `PGPASSWORD` or the password file).
    public static func holdsPassword(_ location: String) -> Bool {
        isPostgreSQL(location) && PostgreSQLSecureItemStore.holdsPassword(location)
    }

    /// Where the store is, safe to show: the file path, or the URI with any password replaced by `***`.
    public var displayLocation: String {
        guard Self.isPostgreSQL(storePath) else { return storePath }
        return PostgreSQLSecureItemStore.redacted(storePath)
    }

    /// Opens the store, creating it (its private directory, file and, for a key file, the key; on
    /// PostgreSQL, its schema) on first use, and unlocks it, on the store's threads (``StoreThreads``):
    /// the key derivation, the file's checks and a server's round trips never block the caller's.
    /// - Throws: ``SecureStoreError/wrongKey`` (nothing is changed),
    ///   ``SecureStoreError/insecurePermissions(path:fix:)``, ``SecureStoreError/integrityFailure(_:)``
    ///   and the other store errors.
    public func open() async throws(SecureStoreError) -> KeychainHandle {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.open() }
    }

    /// ``open()``, on the caller's thread, which it blocks.
    package func open() throws(SecureStoreError) -> KeychainHandle {
        if Self.isPostgreSQL(storePath) {
            let store = try PostgreSQLSecureItemStore.open(
                uri: storePath, keySource: key, accessGroups: accessGroups, options: options)
            return KeychainHandle(.postgreSQL(store))
        }
        let store = try SQLiteSecureItemStore.open(
            at: storePath, keySource: key, accessGroups: accessGroups, options: options)
        return KeychainHandle(.sqlite(store))
    }

    /// Whether a store exists at ``storePath``, asked on the store's threads: a caller that only reads a
    /// session need not create one (no store means no session). On PostgreSQL, whether the server holds
    /// the store's tables; a server that cannot be asked counts as holding them, so that opening it says
    /// why it cannot be reached.
    public var storeExists: Bool {
        get async { await StoreThreads.run { storeExistsBlocking } }
    }

    /// ``storeExists``, on the caller's thread, which it blocks while a server is asked.
    package var storeExistsBlocking: Bool {
        guard Self.isPostgreSQL(storePath) else { return FileManager.default.fileExists(atPath: storePath) }
        return (try? PostgreSQLSecureItemStore.exists(uri: storePath)) ?? true
    }
}
