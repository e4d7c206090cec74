import Data
import StoreCore

/// One fresh, empty store of one adapter: how to open handles on it (each handle is a connection of
/// its own, as two handles on one file are), and what a refused open must leave as it was.
struct StoreLocation: Sendable {
    /// Opens a handle with a key source, access groups and options, creating the store on first use.
    let open: @Sendable (_ keySource: KeySource, _ groups: [String], _ options: StoreOptions) throws(SecureStoreError)
        -> any StoreHandle
    /// What the backend holds, as bytes to compare before and after (the file's bytes, the database's
    /// commit count, a dump of the tables): a wrong key must leave it as it was.
    let persistedState: @Sendable () -> [UInt8]
}
