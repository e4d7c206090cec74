import Data
import StoreCore

/// Opening a store in a ``MemoryDatabase``: creating it on first use (header record and empty rows
/// digest in one write transaction, so that two first opens agree on one store), else unlocking it.
enum MemoryStoreOpener {
    /// An unlocked engine over a new connection to `database`.
    static func open(_ database: MemoryDatabase, keySource: KeySource, groups: [String], options: StoreOptions)
        throws(SecureStoreError) -> StoreEngine
    {
        let storage = MemoryItemStorage(database: database, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        if try storage.readHeaderRecord() == nil {
            let (header, record, keys) = try KeyHierarchy.newStore(keySource: keySource, options: options)
            let engine = StoreEngine(storage: storage, options: options, groups: groups, header: header)
            let emptyDigest = try RowsDigest.empty.stored(.store, keys: keys)
            // Another handle may have created the store while this one derived its key.
            if try engine.writeTyped({ () throws(SecureStoreError) in
                try storage.createStore(record, emptyDigest: emptyDigest)
            }) {
                try engine.install(keys)
                return engine
            }
        }
        guard let stored = try storage.readHeaderRecord() else { throw .integrityFailure("the store header is missing") }
        let header = try StoreHeader(decoding: stored.header, checksum: stored.checksum, wrappedKey: stored.wrappedKey)
        let engine = StoreEngine(storage: storage, options: options, groups: groups, header: header)
        try engine.install(KeyHierarchy.unlock(engine, keySource: keySource))
        try engine.ensureRowsDigest()
        return engine
    }
}
