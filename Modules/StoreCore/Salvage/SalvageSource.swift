package import Data

/// The port salvage reads a damaged store through: every copy of the header record, of the rows digest
/// and of item rows that the backend can still find, whether or not the database itself could answer a
/// query. An adapter only finds and parses; ``StoreSalvage`` decides, by authenticating each candidate
/// with the store's key, what is kept. An adapter never changes the store it reads.
package protocol SalvageSource {
    /// Every header record found, newest first (duplicates allowed: the first that unlocks wins).
    func headerRecords() throws(SecureStoreError) -> [HeaderRecord]
    /// Every encoded rows digest found, newest first.
    func rowsDigests() throws(SecureStoreError) -> [[UInt8]]
    /// Every candidate item row found, and what could not be read at all.
    func candidateRows() throws(SecureStoreError) -> SalvageScan
    /// For a store that keeps one rows digest per access group: each group's encoded digest (`nil` for a
    /// group cell that does not read as a blind index). Empty for a store with one digest.
    func groupDigests() throws(SecureStoreError) -> [(group: BlindIndex?, encoded: [UInt8])]
    /// For a store that keeps one rows digest per access group: the stored registry of the groups
    /// that have one, when it can be read. `nil` for a store with one digest.
    func groupRegistry() throws(SecureStoreError) -> [UInt8]?
}

extension SalvageSource {
    /// One digest for the whole store: no group digests.
    package func groupDigests() throws(SecureStoreError) -> [(group: BlindIndex?, encoded: [UInt8])] { [] }

    /// One digest for the whole store: no registry of groups.
    package func groupRegistry() throws(SecureStoreError) -> [UInt8]? { nil }
}
