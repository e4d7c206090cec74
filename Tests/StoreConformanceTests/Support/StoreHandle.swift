import Data
import StoreCore

/// What every adapter's store handle offers besides the ``SecureItemStore`` port: the lock, the key
/// and the full check. Each adapter's handle conforms in its `StoreAdapter+…` file.
protocol StoreHandle: SecureItemStore {
    /// Whether the keys are wiped.
    var isLocked: Bool { get }
    /// Wipes the keys from memory.
    func lock()
    /// Unlocks a locked store.
    func unlock(with keySource: KeySource) throws(SecureStoreError)
    /// Rewraps the master key under `newSource`.
    func changeKey(to newSource: KeySource) throws(SecureStoreError)
    /// Rotates the master key, re-sealing every item, and wraps the new one under `newSource`.
    func rotateKey(to newSource: KeySource, progress: (Int, Int) -> Void) throws(SecureStoreError) -> Int
    /// The engine behind the handle's lock (for a rotation stopped midway).
    var engine: LockedEngine { get }
    /// Decrypts and checks every item.
    func verify() throws(SecureStoreError) -> VerifyReport
}
