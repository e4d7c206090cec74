public import Domain

extension SecureStoreSessionRepository {
    /// Every account's session in `store` (in the handle's first access group, where its sessions live),
    /// read with one query, as one
    /// snapshot: for listing many accounts without a round trip each. An account whose items cannot be
    /// made into a session gets the error reading it alone would give.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store is locked or damaged.
    public static func sessions(in store: any SecureItemStore) async throws(AuthenticationError)
        -> [AccountName: Result<Session?, AuthenticationError>]
    {
        let found = await StoreThreads.run { () -> Result<[StoredItem], SecureStoreError> in
            Result { () throws(SecureStoreError) in
                try store.find(
                    .genericPassword(accessGroup: store.accessGroups.first, label: label), limit: .all, returning: .all)
            }
        }
        let items: [StoredItem]
        switch found {
        case .success(let found): items = found
        case .failure(.itemNotFound): return [:]
        case .failure(let error): throw .fromStore(error)
        }
        var byAccount: [AccountName: [StoredItem]] = [:]
        for item in items {
            guard let account = item.attributes?.string(.service).flatMap(account(ofService:)) else { continue }
            byAccount[account, default: []].append(item)
        }
        return byAccount.mapValues { items in
            Result { () throws(AuthenticationError) -> Session? in
                do {
                    return try session(from: items)?.session
                } catch let error as AuthenticationError {
                    throw error
                } catch {
                    throw .storageFailed("unexpected failure")
                }
            }
        }
    }
}
