internal import DirectLibPQ
internal import DirectSodium

/// The workload's unavoidable work done straight against libpq and libsodium, with none of Hardtack's
/// layers: the baseline the PostgreSQL store's overhead is measured against.
///
/// One row per item, as ``DirectStore`` keeps them in SQLite: a 16-byte keyed BLAKE2b index of service
/// and account (unique), and nonce ‖ XChaCha20-Poly1305 ciphertext ‖ tag of the secret with the index
/// as additional data. Four statements prepared once on the server, binary parameters and results,
/// each write one statement in its own (autocommit) transaction.
///
/// With `digest`, the floor of the store's protection: each write also updates one rows digest row in
/// the same transaction (`BEGIN`, the write, the digest's `UPDATE`, `COMMIT`), all four in one round
/// trip through libpq's pipeline mode (``DirectPostgreSQLStore/pipelined(_:_:)``). The digest is the
/// count and XOR of a keyed 16-byte BLAKE2b hash of each row's index and version, as Hardtack's, kept
/// by this one writer in memory (so it is computed, never read back).
final class DirectPostgreSQLStore {
    /// A failed libpq or libsodium call.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let connection: OpaquePointer
    private let schema: String
    let keys: UnsafeMutablePointer<UInt8>  // index key ‖ data key
    var index = [UInt8](repeating: 0, count: DirectStore.indexBytes)
    /// Whether each write also updates the digest row, in one round trip.
    let digest: Bool
    /// The digest row's value: the row count (8 bytes, big-endian), then the XOR of the rows' hashes.
    var digestValue = [UInt8](repeating: 0, count: 8 + 16)
    /// Each row's version (by index), for its hash when it is removed.
    var versions: [[UInt8]: UInt64] = [:]
    /// The last version given.
    var lastVersion: UInt64 = 0
    private let plaintext: UnsafeMutablePointer<UInt8>
    private let capacity = 4096

    /// Whether this handle made the schema (and drops it when it goes).
    private let owner: Bool

    /// Connects to `uri` and creates the table in a schema of its own, or, with `creating` false, uses
    /// the one another process made.
    init(uri: String, schema: String, creating: Bool = true, digest: Bool = false) throws {
        precondition(sodium_init() >= 0)
        guard let connection = PQconnectdb(uri), PQstatus(connection) == CONNECTION_OK else {
            throw Failure(description: "cannot connect to the benchmark's PostgreSQL server")
        }
        self.connection = connection
        self.schema = schema
        self.digest = digest
        owner = creating
        keys = sodium_malloc(64)!.assumingMemoryBound(to: UInt8.self)
        randombytes_buf(keys, 64)
        plaintext = sodium_malloc(capacity)!.assumingMemoryBound(to: UInt8.self)
        if creating {
            try execute(
                "CREATE SCHEMA \(schema); CREATE TABLE \(schema).items "
                    + "(id bigserial PRIMARY KEY, idx bytea NOT NULL UNIQUE, data bytea NOT NULL)")
            if digest {
                try execute(
                    "CREATE TABLE \(schema).digest (id integer PRIMARY KEY, value bytea NOT NULL); "
                        + "INSERT INTO \(schema).digest VALUES (1, '\\x'::bytea)")
            }
        }
        if digest { try prepare("digest", "UPDATE \(schema).digest SET value = $1 WHERE id = 1", parameters: 1) }
        try prepare("put", "INSERT INTO \(schema).items (idx, data) VALUES ($1, $2)", parameters: 2)
        try prepare("get", "SELECT data FROM \(schema).items WHERE idx = $1", parameters: 1)
        try prepare("update", "UPDATE \(schema).items SET data = $1 WHERE idx = $2", parameters: 2)
        try prepare("delete", "DELETE FROM \(schema).items WHERE idx = $1", parameters: 1)
    }

    deinit {
        if owner { _ = try? execute("DROP SCHEMA \(schema) CASCADE") }
        PQfinish(connection)
        sodium_free(keys)
        sodium_free(plaintext)
    }

    /// Adds an item.
    @inline(never)  // a function of its own, so a profile counts each operation apart
    func put(_ message: [UInt8], secret: [UInt8]) throws {
        computeIndex(message)
        let box = seal(secret)
        if digest {
            try digestInsert()
            return try pipelined("put", [index, box])
        }
        try run("put", [index, box], expectingRows: 1)
    }

    /// Reads an item's secret into protected memory; returns its length.
    @inline(never)  // a function of its own, so a profile counts each operation apart
    func get(_ message: [UInt8]) throws -> Int {
        computeIndex(message)
        let result = try execute("get", [index])
        defer { PQclear(result) }
        guard PQntuples(result) == 1 else { throw Failure(description: "item not found") }
        let count = Int(PQgetlength(result, 0, 0))
        guard let cell = PQgetvalue(result, 0, 0) else { throw Failure(description: "malformed row") }
        let blob = UnsafeRawPointer(cell).assumingMemoryBound(to: UInt8.self)
        let overhead = DirectStore.nonceBytes + DirectStore.tagBytes
        guard count >= overhead, count - overhead <= capacity else { throw Failure(description: "malformed row") }
        var written: UInt64 = 0
        let code = crypto_aead_xchacha20poly1305_ietf_decrypt(
            plaintext, &written, nil, blob + DirectStore.nonceBytes, UInt64(count - DirectStore.nonceBytes), index,
            UInt64(DirectStore.indexBytes), blob, keys + 32)
        guard code == 0 else { throw Failure(description: "authentication failed") }
        return Int(written)
    }

    /// Replaces an item's secret.
    @inline(never)  // a function of its own, so a profile counts each operation apart
    func update(_ message: [UInt8], secret: [UInt8]) throws {
        computeIndex(message)
        let box = seal(secret)
        if digest {
            try digestRemove()
            try digestInsert()
            return try pipelined("update", [box, index])
        }
        try run("update", [box, index], expectingRows: 1)
    }

    /// Deletes an item.
    @inline(never)  // a function of its own, so a profile counts each operation apart
    func delete(_ message: [UInt8]) throws {
        computeIndex(message)
        if digest {
            try digestRemove()
            return try pipelined("delete", [index])
        }
        try run("delete", [index], expectingRows: 1)
    }

    /// The table's size with its indexes and TOAST, in bytes.
    var tableSize: Int {
        guard let result = PQexec(connection, "SELECT pg_total_relation_size('\(schema).items')::text") else {
            return 0
        }
        defer { PQclear(result) }
        guard PQntuples(result) == 1, let text = PQgetvalue(result, 0, 0) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    private func computeIndex(_ message: [UInt8]) {
        _ = crypto_generichash(&index, DirectStore.indexBytes, message, UInt64(message.count), keys, 32)
    }

    private func seal(_ secret: [UInt8]) -> [UInt8] {
        var box = [UInt8](repeating: 0, count: DirectStore.nonceBytes + secret.count + DirectStore.tagBytes)
        box.withUnsafeMutableBufferPointer { out in
            randombytes_buf(out.baseAddress!, DirectStore.nonceBytes)
            var written: UInt64 = 0
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                out.baseAddress! + DirectStore.nonceBytes, &written, secret, UInt64(secret.count), index,
                UInt64(DirectStore.indexBytes), nil, out.baseAddress!, keys + 32)
        }
        return box
    }

    func run(_ name: String, _ parameters: [[UInt8]], expectingRows expected: Int) throws {
        let result = try execute(name, parameters)
        defer { PQclear(result) }
        guard Int(String(cString: PQcmdTuples(result))) == expected else {
            throw Failure(description: "wrong number of rows changed")
        }
    }

    /// Runs prepared statement `name` with binary parameters and a binary result.
    func execute(_ name: String, _ parameters: [[UInt8]]) throws -> OpaquePointer {
        let lengths = parameters.map { Int32($0.count) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // Each parameter's bytes stay alive (and unmoved) for the call.
        let result: OpaquePointer? = withPointers(parameters) { values in
            PQexecPrepared(connection, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        guard let result else { throw Failure(description: "no result") }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let message = String(cString: PQresultErrorMessage(result))
            PQclear(result)
            throw Failure(description: message)
        }
        return result
    }

    func withPointers<Result>(
        _ parameters: [[UInt8]], _ body: ([UnsafePointer<CChar>?]) -> Result
    ) -> Result {
        func nest(_ index: Int, _ pointers: [UnsafePointer<CChar>?]) -> Result {
            guard index < parameters.count else { return body(pointers) }
            return parameters[index].withUnsafeBytes { raw in
                nest(index + 1, pointers + [raw.baseAddress?.assumingMemoryBound(to: CChar.self)])
            }
        }
        return nest(0, [])
    }

    private func prepare(_ name: String, _ sql: String, parameters: Int) throws {
        let types = [Oid](repeating: 17, count: parameters)  // bytea
        guard let result = PQprepare(connection, name, sql, Int32(parameters), types) else {
            throw Failure(description: "prepare failed")
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw Failure(description: String(cString: PQresultErrorMessage(result)))
        }
    }

    @discardableResult
    private func execute(_ sql: String) throws -> Bool {
        guard let result = PQexec(connection, sql) else { throw Failure(description: "no result") }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw Failure(description: String(cString: PQresultErrorMessage(result)))
        }
        return true
    }
}
