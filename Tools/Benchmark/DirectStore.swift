internal import DirectSQLite
internal import DirectSodium

/// The workload's unavoidable work done straight against SQLite and libsodium, with none of
/// Hardtack's layers: the baseline Hardtack's overhead is measured against.
///
/// One row per item: a 16-byte keyed BLAKE2b index of service and account (unique), and
/// nonce ‖ XChaCha20-Poly1305 ciphertext ‖ tag of the secret with the index as additional data.
/// Statements are prepared once and each write is a single statement in its own (autocommit)
/// transaction. Keys live in `sodium_malloc`ed memory.
final class DirectStore {
    /// A failed SQLite or libsodium call.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let indexBytes = 16
    static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    private let handle: OpaquePointer
    private let keys: UnsafeMutablePointer<UInt8>  // index key ‖ data key
    private var insert: OpaquePointer?
    private var select: OpaquePointer?
    private var update: OpaquePointer?
    private var remove: OpaquePointer?
    // Buffers reused by every call, allocated once: the index, the sealed box, the decrypted secret.
    private let index: UnsafeMutablePointer<UInt8>
    private let box: UnsafeMutablePointer<UInt8>
    private var boxCount = 0
    private let plaintext: UnsafeMutablePointer<UInt8>
    private let capacity = 4096

    /// Creates a fresh database at `path` with the same settings as a Hardtack store (the same page
    /// cache size too: a larger cache helps both).
    init(path: String, sync: SyncMode) throws {
        precondition(sodium_init() >= 0)
        var db: OpaquePointer?
        // No SQLite mutex, as in Hardtack: one thread uses the connection.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            throw Failure(description: "cannot open \(path)")
        }
        handle = db
        keys = sodium_malloc(64)!.assumingMemoryBound(to: UInt8.self)
        randombytes_buf(keys, 64)
        plaintext = sodium_malloc(capacity)!.assumingMemoryBound(to: UInt8.self)
        index = .allocate(capacity: Self.indexBytes)
        box = .allocate(capacity: capacity)
        try execute(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = \(sync.pragmaValue); PRAGMA secure_delete = ON; "
                + "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16384; "
                + "CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, idx BLOB NOT NULL UNIQUE, data BLOB NOT NULL)")
        insert = try prepare("INSERT INTO items (idx, data) VALUES (?, ?)")
        select = try prepare("SELECT data FROM items WHERE idx = ?")
        update = try prepare("UPDATE items SET data = ? WHERE idx = ?")
        remove = try prepare("DELETE FROM items WHERE idx = ?")
    }

    deinit {
        for statement in [insert, select, update, remove] { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
        sodium_free(keys)
        sodium_free(plaintext)
        index.deallocate()
        box.deallocate()
    }

    /// The message an item's index is computed from: service ‖ 0 ‖ account.
    static func lookupMessage(account: String) -> [UInt8] {
        Array(Workload.service.utf8) + [0] + Array(account.utf8)
    }

    /// Adds an item.
    @inline(never)  // a function of its own, so a profile counts each operation apart
    func put(_ message: [UInt8], secret: [UInt8]) throws {
        computeIndex(message)
        seal(secret)
        bind(insert, 1, index, Self.indexBytes)
        bind(insert, 2, box, boxCount)
        try finish(insert, expectingChanges: 1)
    }

    /// Reads an item's secret into protected memory; returns its length.
    @inline(never)  // a function of its own, so a profile counts each operation apart
    func get(_ message: [UInt8]) throws -> Int {
        computeIndex(message)
        bind(select, 1, index, Self.indexBytes)
        defer {
            sqlite3_reset(select)
            sqlite3_clear_bindings(select)
        }
        guard sqlite3_step(select) == SQLITE_ROW else { throw Failure(description: "item not found") }
        let count = Int(sqlite3_column_bytes(select, 0))
        guard let blob = sqlite3_column_blob(select, 0)?.assumingMemoryBound(to: UInt8.self),
            count >= Self.nonceBytes + Self.tagBytes, count - Self.nonceBytes - Self.tagBytes <= capacity
        else { throw Failure(description: "malformed row") }
        var written: UInt64 = 0
        let code = crypto_aead_xchacha20poly1305_ietf_decrypt(
            plaintext, &written, nil, blob + Self.nonceBytes, UInt64(count - Self.nonceBytes), index,
            UInt64(Self.indexBytes), blob, keys + 32)
        guard code == 0 else { throw Failure(description: "authentication failed") }
        return Int(written)
    }

    /// Replaces an item's secret.
    @inline(never)  // a function of its own, so a profile counts each operation apart
    func update(_ message: [UInt8], secret: [UInt8]) throws {
        computeIndex(message)
        seal(secret)
        bind(update, 1, box, boxCount)
        bind(update, 2, index, Self.indexBytes)
        try finish(update, expectingChanges: 1)
    }

    /// Deletes an item.
    @inline(never)  // a function of its own, so a profile counts each operation apart
    func delete(_ message: [UInt8]) throws {
        computeIndex(message)
        bind(remove, 1, index, Self.indexBytes)
        try finish(remove, expectingChanges: 1)
    }

    /// Runs `body` in one transaction (for filling a large store quickly).
    func batch(_ body: () throws -> Void) throws {
        try execute("BEGIN")
        try body()
        try execute("COMMIT")
    }

    /// Moves the log into the database file.
    func checkpoint() throws {
        guard sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil) == SQLITE_OK else {
            throw Failure(description: "checkpoint failed")
        }
    }

    private func computeIndex(_ message: [UInt8]) {
        _ = crypto_generichash(index, Self.indexBytes, message, UInt64(message.count), keys, 32)
    }

    private func seal(_ secret: [UInt8]) {
        precondition(Self.nonceBytes + secret.count + Self.tagBytes <= capacity)
        randombytes_buf(box, Self.nonceBytes)
        var written: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
            box + Self.nonceBytes, &written, secret, UInt64(secret.count), index, UInt64(Self.indexBytes), nil, box,
            keys + 32)
        boxCount = Self.nonceBytes + Int(written)
    }

    private func bind(_ statement: OpaquePointer?, _ position: Int32, _ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) {
        // SQLITE_STATIC (nil): the buffers belong to this object and outlive the step, so SQLite copies nothing.
        _ = sqlite3_bind_blob(statement, position, bytes, Int32(count), nil)
    }

    private func finish(_ statement: OpaquePointer?, expectingChanges expected: Int32) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        guard code == SQLITE_DONE else { throw Failure(description: String(cString: sqlite3_errmsg(handle))) }
        guard sqlite3_changes(handle) == expected else { throw Failure(description: "wrong number of rows changed") }
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK
        else { throw Failure(description: String(cString: sqlite3_errmsg(handle))) }
        return statement
    }
}
