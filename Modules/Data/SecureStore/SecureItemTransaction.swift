public import Domain
public import Foundation

/// The item operations of a secure store (Keychain Services' add, copy-matching, update and delete),
/// valid inside one transaction.
///
/// Inside ``SecureItemStore/transaction(_:)`` every call joins the one transaction, which commits when
/// the closure returns and rolls back when it throws. A call that throws leaves none of its own writes
/// behind either way, so the closure may catch its error and go on. Called on the store itself, each
/// is its own transaction.
public protocol SecureItemTransaction {
    /// Adds an item. Unique-key attributes left out count as empty values.
    /// - Throws: ``SecureStoreError/duplicateItem`` when an item with the same unique key exists.
    func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)

    /// Finds items whose attributes equal every attribute of `query`.
    /// - Throws: ``SecureStoreError/itemNotFound`` when none matches; ``SecureStoreError/locked`` or
    ///   ``SecureStoreError/integrityFailure(_:)`` when the store cannot answer.
    func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]

    /// Changes every item matching `query`: sets the given attributes and, when given, the data.
    /// - Returns: how many items changed (at least one).
    /// - Throws: ``SecureStoreError/itemNotFound`` when none matches, ``SecureStoreError/duplicateItem``
    ///   when the change would make two items share a unique key; nothing is changed then.
    @discardableResult
    func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError)
        -> Int

    /// Deletes every item matching `query`.
    /// - Returns: how many were deleted; `0` means nothing matched, which callers may ignore.
    @discardableResult
    func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int

    /// Adds the item, or, when one with the same unique key exists, sets its data and the given
    /// attributes, in one step: never delete-then-add, never a race between add and update.
    @discardableResult
    func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> AddOrUpdateOutcome

    /// The time by the clock that every sharer of the store reads (a database server's), or `nil` when
    /// the store keeps none and each process goes by its own clock (a file on one machine).
    /// - Throws: ``SecureStoreError`` when the store cannot be asked.
    func sharedClock() throws(SecureStoreError) -> Date?
}

extension SecureItemTransaction {
    /// No clock of the store's own: each process goes by its own.
    public func sharedClock() throws(SecureStoreError) -> Date? { nil }
}
