public import Data
public import StoreCore
import Foundation

/// The secure item store on a PostgreSQL server: the same Keychain Services semantics, encryption,
/// binding and tamper evidence as ``SQLiteSecureItemStore``, shared by every instance of a backend
/// that connects to the same database.
///
/// One handle holds one connection. It is safe to share between tasks and threads (operations are
/// serialized by a lock). Calls block the calling thread while the server answers, each bounded by
/// the connection's timeouts; from Swift concurrency, await the store's `async` operations, which run
/// on the store's own threads (``StoreThreads``), as with the SQLite store.
public final class PostgreSQLSecureItemStore: EngineBackedStore {
    /// Where the store is, with any password replaced by `***`.
    public let location: String
    /// The access groups this handle belongs to; new items go to the first.
    public let accessGroups: [String]
    /// The engine behind the handle's lock (opaque outside the store's package).
    public let engine: LockedEngine
    /// The server, with its password, and the connection settings, for ``takeInstanceLock()``.
    private let server: (location: PostgreSQLLocation, options: PostgreSQLConnectionOptions)

    private init(
        location: PostgreSQLLocation, options: PostgreSQLConnectionOptions, accessGroups: [String], engine: StoreEngine
    ) {
        self.location = location.redacted
        self.server = (location, options)
        self.accessGroups = accessGroups
        self.engine = LockedEngine(engine)
    }

    /// Takes this instance's sign of life on the store's server (see ``PostgreSQLInstanceLock``), on a
    /// connection of its own.
    /// - Throws: ``SecureStoreError/storage(_:)`` when the server cannot be reached.
    public func takeInstanceLock() throws(SecureStoreError) -> PostgreSQLInstanceLock {
        try PostgreSQLInstanceLock.take(location: server.location, options: server.options)
    }

    /// Connects to the server at `uri` (libpq's `postgresql://` or `postgres://` syntax; a password is
    /// read from the URI, `PGPASSWORD` or `~/.pgpass`, and never shown), creates the store's schema and
    /// header on first use, and unlocks the store. `schema` holds the store's tables (one store per
    /// schema; lowercase letters, digits and underscores).
    /// - Throws: ``SecureStoreError/wrongKey``, ``SecureStoreError/integrityFailure(_:)``, and
    ///   ``SecureStoreError/storage(_:)`` of kind `unavailable` when the server cannot be reached.
    public static func open(
        uri: String, schema: String = "hardtack", keySource: KeySource, accessGroups: [String] = ["default"],
        options: StoreOptions = StoreOptions()
    ) throws(SecureStoreError) -> PostgreSQLSecureItemStore {
        try open(
            uri: uri, schema: schema, keySource: keySource, accessGroups: accessGroups, options: options,
            connectionOptions: PostgreSQLConnectionOptions())
    }

    /// ``open(uri:schema:keySource:accessGroups:options:)`` with the connection's timeouts and name.
    package static func open(
        uri: String, schema: String, keySource: KeySource, accessGroups: [String], options: StoreOptions,
        connectionOptions: PostgreSQLConnectionOptions
    ) throws(SecureStoreError) -> PostgreSQLSecureItemStore {
        guard !accessGroups.isEmpty, !accessGroups.contains(where: \.isEmpty) else {
            throw .missingEntitlement(accessGroup: "")
        }
        var seen: Set<String> = []
        let groups = accessGroups.filter { seen.insert($0).inserted }
        let location: PostgreSQLLocation
        do {
            location = try PostgreSQLLocation(uri)
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
        let (engine, _) = try PostgreSQLStoreOpener.open(
            location: location, schema: schema, keySource: keySource, groups: groups, options: options,
            connectionOptions: connectionOptions)
        return PostgreSQLSecureItemStore(
            location: location, options: connectionOptions, accessGroups: groups, engine: engine)
    }

    /// `uri` with any password replaced by `***`, for messages; a URI libpq refuses is shown as a
    /// placeholder, never as written.
    public static func redacted(_ uri: String) -> String {
        (try? PostgreSQLLocation(uri).redacted) ?? "postgresql://(a URI that is not valid)"
    }

    /// Whether `uri` carries a password itself (`user:password@`, or a `password` parameter), valid URI
    /// or not; without one libpq looks in `PGPASSWORD` and the password file.
    public static func holdsPassword(_ uri: String) -> Bool {
        PostgreSQLLocation.redact(uri).1.contains { !$0.isEmpty }
    }

    /// Whether the server at `uri` holds a store in `schema` (a damaged one included).
    /// - Throws: ``SecureStoreError/storage(_:)`` when the server cannot be asked.
    public static func exists(uri: String, schema: String = "hardtack") throws(SecureStoreError) -> Bool {
        guard PostgreSQLSchema.isPlainIdentifier(schema) else { return false }
        do {
            let connection = try PostgreSQLConnection(to: try PostgreSQLLocation(uri))
            defer { connection.close() }
            // The tables alone say a store was made here (without its header row, it is damaged).
            return try connection.query(PostgreSQLSchema.metaExists(schema)).bool(0, 0)
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    /// Whether `text` names a PostgreSQL store (`postgresql://` or `postgres://`) rather than a file.
    public static func isLocation(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }
}
