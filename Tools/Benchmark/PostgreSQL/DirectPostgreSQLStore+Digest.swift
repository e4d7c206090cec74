internal import DirectLibPQ
internal import DirectSodium

/// The floor of the store's protection (``DirectPostgreSQLStore/digest``): the rows digest kept in
/// memory, and a write sent with the digest's update inside `BEGIN` … `COMMIT` in one round trip.
extension DirectPostgreSQLStore {
    /// Counts the row of the current index in, at a new version.
    func digestInsert() throws {
        lastVersion += 1
        versions[index] = lastVersion
        toggle(rowHash(lastVersion), by: 1)
    }

    /// Counts the row of the current index out.
    func digestRemove() throws {
        guard let version = versions.removeValue(forKey: index) else { throw Failure(description: "no such row") }
        toggle(rowHash(version), by: -1)
    }

    private func rowHash(_ version: UInt64) -> [UInt8] {
        var message = index
        withUnsafeBytes(of: version.bigEndian) { message.append(contentsOf: $0) }
        var hash = [UInt8](repeating: 0, count: 16)
        _ = crypto_generichash(&hash, 16, message, UInt64(message.count), keys, 32)
        return hash
    }

    private func toggle(_ hash: [UInt8], by change: Int64) {
        var count = digestValue[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        count = UInt64(bitPattern: Int64(bitPattern: count) + change)
        for position in 0..<8 { digestValue[position] = UInt8(truncatingIfNeeded: count >> (56 - 8 * position)) }
        for position in 0..<16 { digestValue[8 + position] ^= hash[position] }
    }

    /// Runs `BEGIN`, prepared statement `name` (which must change one row), the digest's update and
    /// `COMMIT` in pipeline mode: four statements, one sync, one round trip.
    func pipelined(_ name: String, _ parameters: [[UInt8]]) throws {
        guard PQenterPipelineMode(connection) == 1 else { throw Failure(description: "no pipeline mode") }
        defer { _ = PQexitPipelineMode(connection) }
        let formats = [Int32](repeating: 1, count: 1)
        var sent = PQsendQueryParams(connection, "BEGIN", 0, nil, nil, nil, nil, 1)
        sent &= withPointers(parameters) { values in
            PQsendQueryPrepared(
                connection, name, Int32(parameters.count), values, parameters.map { Int32($0.count) },
                [Int32](repeating: 1, count: parameters.count), 1)
        }
        sent &= withPointers([digestValue]) { values in
            PQsendQueryPrepared(connection, "digest", 1, values, [Int32(digestValue.count)], formats, 1)
        }
        sent &= PQsendQueryParams(connection, "COMMIT", 0, nil, nil, nil, nil, 1)
        guard sent == 1, PQpipelineSync(connection) == 1 else { throw Failure(description: "a pipelined send failed") }
        var failure: String?
        for statement in 0..<4 {
            guard let result = PQgetResult(connection) else { throw Failure(description: "a result is missing") }
            let status = PQresultStatus(result)
            if status != PGRES_COMMAND_OK && failure == nil {
                failure = String(cString: PQresultErrorMessage(result))
            } else if statement == 1 || statement == 2, Int(String(cString: PQcmdTuples(result))) != 1, failure == nil {
                failure = "wrong number of rows changed"
            }
            PQclear(result)
            if let end = PQgetResult(connection) { PQclear(end) }  // The NULL that ends each statement's results.
        }
        guard let sync = PQgetResult(connection) else { throw Failure(description: "the sync is missing") }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        if let failure { throw Failure(description: failure) }
        guard synced else { throw Failure(description: "the pipeline did not end with its sync") }
    }
}
