public import Data
public import Domain

/// A store every call of which fails with one error: a locked store, a server that is down, damage.
public struct FailingStore: SecureItemStore {
    private let error: SecureStoreError

    /// A store whose every call throws `error`.
    public init(_ error: SecureStoreError) {
        self.error = error
    }

    public var accessGroups: [String] { ["default"] }

    public func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        throw error
    }

    public func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) { throw error }

    public func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        throw error
    }

    public func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError)
        -> Int
    {
        throw error
    }

    public func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int { throw error }

    public func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        throw error
    }
}
