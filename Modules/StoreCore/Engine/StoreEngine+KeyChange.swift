import Data

/// A key changed by another handle: after a rotation elsewhere, this handle's keys open nothing, which
/// is not damage. Asked only after an integrity failure, so it costs nothing on the way that succeeds.
extension StoreEngine {
    /// Whether the stored header is no longer the one this engine unlocked (or last wrote): another
    /// handle changed the store's key since. A header that cannot be read says nothing.
    func headerChangedElsewhere() -> Bool {
        guard keys != nil, transactionDepth == 0, let stored = try? storage.readHeaderRecord() else { return false }
        return stored.header != header.encoded
    }
}
