public import Data
import Foundation
import PostgreSQLStore
import SQLiteStore
import StoreCore

/// Everything needed to open the secure item store: where it is, what unlocks it, which access groups
/// the caller belongs to, and how durable and costly its writes are. The one place a store is opened.
public struct StoreConfiguration: Sendable {
    /// The variable that holds the passphrase when no passphrase file is given.
    public static let passphraseVariable = "HARDTACK_PASSPHRASE"
    /// The variable that names the store (a file path or a PostgreSQL URI) when `--store` is not given.
    public static let storeVariable = "HARDTACK_STORE"
    /// The access group used when none is named.
    public static let defaultAccessGroup = "default"

    /// The database file, or a `postgresql://` / `postgres://` URI (which may hold a password: show
    /// ``displayLocation`` instead).
    public var storePath: String
    /// What unlocks the store (and protects it when it is created).
    public var key: KeyChoice
    /// The caller's access groups; new items go to the first.
    public var accessGroups: [String]
    /// How durable each commit is.
    public var durability: StoreDurability
    /// The Argon2id cost for a new passphrase.
    public var passphraseCost: PassphraseCost
    /// Told once per wait when the store has waited a second for another process's lock.
    public var onLongWait: (@Sendable () -> Void)?
    /// The command only reads: a store on read-only media is then opened read-only instead of refused.
    public var onlyReads = false

    /// Creates a configuration from explicit values.
    public init(
        storePath: String, key: KeyChoice, accessGroups: [String] = [defaultAccessGroup],
        durability: StoreDurability = .full, passphraseCost: PassphraseCost = .moderate
    ) {
        self.storePath = storePath
        self.key = key
        self.accessGroups = accessGroups
        self.durability = durability
        self.passphraseCost = passphraseCost
    }

    /// Resolves what a user named into a configuration: the store (named, else `HARDTACK_STORE`, else
    /// the default path), the key source by precedence (see
    /// ``KeyRequest/resolve(environment:passphraseVariable:)``) with the key file beside a store file
    /// (`<store>.key`) as the last resort, and the `default` access group.
    /// - Throws: what ``KeyRequest/resolve(environment:passphraseVariable:)`` throws for a passphrase file;
    ///   ``SecureStoreError/invalidKeyMaterial(_:)`` for a PostgreSQL store with no key named (it has no
    ///   file beside it to keep one in).
    public static func resolve(
        storePath: String?, key: KeyRequest, accessGroups: [String], durability: StoreDurability = .full,
        passphraseCost: PassphraseCost = .moderate, environment: [String: String]
    ) throws(SecureStoreError) -> StoreConfiguration {
        let path = storePath ?? environment[storeVariable].flatMap { $0.isEmpty ? nil : $0 }
            ?? defaultStorePath(environment: environment)
        let named = try key.resolve(environment: environment, passphraseVariable: passphraseVariable)
        if isPostgreSQL(path), named == nil {
            throw .invalidKeyMaterial("a PostgreSQL store needs its key named explicitly (there is no file beside it)")
        }
        let choice = named ?? .keyFile(path: defaultKeyFile(forStore: path))
        return StoreConfiguration(
            storePath: path, key: choice, accessGroups: accessGroups.isEmpty ? [defaultAccessGroup] : accessGroups,
            durability: durability, passphraseCost: passphraseCost)
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

    /// Where the store is, safe to show: the file path, or the URI with any password replaced by `***`.
    public var displayLocation: String {
        guard Self.isPostgreSQL(storePath) else { return storePath }
        return PostgreSQLSecureItemStore.redacted(storePath)
    }

    /// Opens the store, creating it (its private directory, file and, for a key file, the key; on
    /// PostgreSQL, its schema) on first use, and unlocks it.
    /// - Throws: ``SecureStoreError/wrongKey`` (nothing is changed),
    ///   ``SecureStoreError/insecurePermissions(path:fix:)``, ``SecureStoreError/integrityFailure(_:)``
    ///   and the other store errors.
    public func open() throws(SecureStoreError) -> KeychainHandle {
        var options = StoreOptions(
            durability: durability == .full ? .full : .normal,
            passphraseCost: passphraseCost == .moderate ? .moderate : .interactive)
        options.onLongWait = onLongWait
        options.onlyReads = onlyReads
        if Self.isPostgreSQL(storePath) {
            let store = try PostgreSQLSecureItemStore.open(
                uri: storePath, keySource: key.keySource, accessGroups: accessGroups, options: options)
            return KeychainHandle(.postgreSQL(store))
        }
        let store = try SQLiteSecureItemStore.open(
            at: storePath, keySource: key.keySource, accessGroups: accessGroups, options: options)
        return KeychainHandle(.sqlite(store))
    }

    /// Whether a store exists at ``storePath``: commands that only read a session never create one (no
    /// store means no session). On PostgreSQL, whether the server holds the store's tables; a server
    /// that cannot be asked counts as holding them, so that opening it says why it cannot be reached.
    public var storeExists: Bool {
        guard Self.isPostgreSQL(storePath) else { return FileManager.default.fileExists(atPath: storePath) }
        return (try? PostgreSQLSecureItemStore.exists(uri: storePath)) ?? true
    }
}
