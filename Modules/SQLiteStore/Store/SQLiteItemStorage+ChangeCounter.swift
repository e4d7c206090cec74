import Data
import StoreCore

/// How a connection tells that another has committed: SQLite's `data_version`, and the pager's own
/// version, which says without a statement that nothing moved since the pragma was read.
extension SQLiteItemStorage {
    /// SQLite's `data_version`: it changes when another connection commits. Read once per transaction.
    func changeCounter() throws(SecureStoreError) -> Int64 {
        if let transactionVersion, connection.isInTransaction { return transactionVersion }
        let version = try statement(.dataVersion)
        defer { version.reset() }
        _ = try version.step()
        let value = version.int64(at: 0)
        if connection.isInTransaction { transactionVersion = value }
        // The pragma began a read, which brought the pager's version up to date with the file.
        lastDataVersion = connection.pagerDataVersion.map { (pager: $0, value: value) }
        return value
    }

    /// ``changeCounter()`` as of the last read outside a transaction, without a statement, when the
    /// pager's version has not moved since `data_version` was last read: that version moves with every
    /// commit of this connection and at the start of every read that finds another's commit, so an
    /// unmoved one means the last read saw the file as the pragma did. `nil` when it moved.
    func changeCounterOfLastRead() -> Int64? {
        guard !connection.isInTransaction, let lastDataVersion, connection.pagerDataVersion == lastDataVersion.pager
        else { return nil }
        return lastDataVersion.value
    }

    /// The pager's data version just after `data_version` was read: the pragma's read brought it up to
    /// date with the file, and it moves with every commit, this connection's and every other's. `nil`
    /// inside a transaction. Unless `waiting`, the read fails as busy rather than wait for a lock (one
    /// held while another connection recovers the WAL, say).
    func changeMark(waiting: Bool) throws(SecureStoreError) -> UInt64? {
        guard !connection.isInTransaction else { return nil }
        if waiting {
            _ = try changeCounter()
        } else {
            _ = try connection.withoutWaiting { () throws(SecureStoreError) in try changeCounter() }
        }
        return connection.pagerDataVersion.map(UInt64.init)
    }
}
