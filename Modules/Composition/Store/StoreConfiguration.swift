public import Data
import Foundation
import SQLiteStore
import StoreCore

/// Everything needed to open the secure item store: where it is, what unlocks it, which access groups
/// the caller belongs to, and how durable and costly its writes are. The one place a store is opened.
public struct StoreConfiguration: Sendable {
    /// The variable that holds the passphrase when no passphrase file is given.
    public static let passphraseVariable = "HARDTACK_PASSPHRASE"
    /// The access group used when none is named.
    public static let defaultAccessGroup = "default"

    /// The database file.
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

    /// Resolves what a user named into a configuration: the default store path, the key source by
    /// precedence (see ``KeyRequest/resolve(environment:passphraseVariable:)``) with the key file
    /// beside the store (`<store>.key`) as the last resort, and the `default` access group.
    /// - Throws: what ``KeyRequest/resolve(environment:passphraseVariable:)`` throws for a passphrase file.
    public static func resolve(
        storePath: String?, key: KeyRequest, accessGroups: [String], durability: StoreDurability = .full,
        passphraseCost: PassphraseCost = .moderate, environment: [String: String]
    ) throws(SecureStoreError) -> StoreConfiguration {
        let path = storePath ?? defaultStorePath(environment: environment)
        let choice =
            try key.resolve(environment: environment, passphraseVariable: passphraseVariable)
            ?? .keyFile(path: defaultKeyFile(forStore: path))
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

    /// Opens the store, creating it (its private directory, file and, for a key file, the key) on
    /// first use, and unlocks it.
    /// - Throws: ``SecureStoreError/wrongKey`` (nothing is changed),
    ///   ``SecureStoreError/insecurePermissions(path:fix:)``, ``SecureStoreError/integrityFailure(_:)``
    ///   and the other store errors.
    public func open() throws(SecureStoreError) -> KeychainHandle {
        var options = StoreOptions(
            durability: durability == .full ? .full : .normal,
            passphraseCost: passphraseCost == .moderate ? .moderate : .interactive)
        options.onLongWait = onLongWait
        let store = try SQLiteSecureItemStore.open(
            at: storePath, keySource: key.keySource, accessGroups: accessGroups, options: options)
        return KeychainHandle(store: store)
    }

    /// Whether a store file exists at ``storePath``: commands that only read a session never create
    /// one (no store means no session).
    public var storeExists: Bool {
        FileManager.default.fileExists(atPath: storePath)
    }
}
