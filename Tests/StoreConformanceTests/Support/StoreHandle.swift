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
    /// Decrypts and checks every item.
    func verify() throws(SecureStoreError) -> VerifyReport
}
