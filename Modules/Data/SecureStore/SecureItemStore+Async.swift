public import Domain

/// The store's operations as awaited from Swift concurrency: each runs on the store's threads
/// (``StoreThreads``), never on the caller's. In an `async` function these are the ones Swift picks
/// (and `await` is then required), so a task cannot block the cooperative pool on a store call by
/// mistake; synchronous code, and the body of a ``SecureItemStore/transaction(_:)``, keeps the
/// synchronous ones.
extension SecureItemStore {
    /// Adds an item, on the store's threads (see ``SecureItemTransaction/add(_:data:)``).
    public func add(_ attributes: ItemAttributes, data: SecretBytes) async throws(SecureStoreError) {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.add(attributes, data: data) }
    }

    /// Finds items, on the store's threads (see ``SecureItemTransaction/find(_:limit:returning:)``).
    public func find(_ query: ItemAttributes, limit: MatchLimit = .one, returning parts: ItemParts = .data)
        async throws(SecureStoreError) -> [StoredItem]
    {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.find(query, limit: limit, returning: parts) }
    }

    /// Changes every matching item, on the store's threads (see
    /// ``SecureItemTransaction/update(_:attributes:data:)``).
    @discardableResult
    public func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?)
        async throws(SecureStoreError) -> Int
    {
        try await StoreThreads.run { () throws(SecureStoreError) in
            try self.update(query, attributes: attributes, data: data)
        }
    }

    /// Sets the data of every matching item, on the store's threads.
    @discardableResult
    public func update(_ query: ItemAttributes, data: SecretBytes) async throws(SecureStoreError) -> Int {
        try await update(query, attributes: nil, data: data)
    }

    /// Deletes every matching item, on the store's threads (see ``SecureItemTransaction/delete(_:)``).
    @discardableResult
    public func delete(_ query: ItemAttributes) async throws(SecureStoreError) -> Int {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.delete(query) }
    }

    /// Adds the item or updates the one with its unique key, on the store's threads (see
    /// ``SecureItemTransaction/addOrUpdate(_:data:)``).
    @discardableResult
    public func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) async throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.addOrUpdate(attributes, data: data) }
    }

    /// Adds or updates an item whose data is `string` in UTF-8, on the store's threads.
    @discardableResult
    public func addOrUpdate(_ attributes: ItemAttributes, string: String) async throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.addOrUpdate(attributes, string: string) }
    }

    /// Adds or updates an item whose data is `value` as JSON, on the store's threads.
    @discardableResult
    public func addOrUpdate<Value: Encodable>(_ attributes: ItemAttributes, value: Value) async throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.addOrUpdate(attributes, value: value) }
    }

    /// Reads the first matching item, telling found, not found, locked and damaged apart, on the
    /// store's threads.
    public func lookup(_ query: ItemAttributes, returning parts: ItemParts = .data) async -> ItemLookup {
        await StoreThreads.run { () -> ItemLookup in self.lookup(query, returning: parts) }
    }

    /// The data of the first matching item as a string, on the store's threads.
    public func findString(_ query: ItemAttributes) async throws(SecureStoreError) -> String {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.findString(query) }
    }

    /// The data of the first matching item decoded from JSON, on the store's threads.
    public func findValue<Value: Decodable>(_ type: Value.Type, _ query: ItemAttributes) async throws(SecureStoreError)
        -> Value
    {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.findValue(type, query) }
    }

    /// Runs `body` in one transaction on the store's threads (see ``SecureItemStore/transaction(_:)``).
    public func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) async throws -> Result {
        try await StoreThreads.run { () throws -> Result in try self.transaction(body) }
    }
}
