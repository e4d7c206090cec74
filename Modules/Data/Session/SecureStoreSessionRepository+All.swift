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
        var sessions: [AccountName: Result<Session?, AuthenticationError>] = [:]
        for stored in try await storedSessions(in: store) { sessions[stored.account] = stored.session }
        return sessions
    }

    /// ``sessions(in:)`` with when each was signed in, sorted by account: what an operator's listing shows.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store is locked or damaged.
    public static func storedSessions(in store: any SecureItemStore) async throws(AuthenticationError) -> [StoredSession] {
        let found = await StoreThreads.run { () -> Result<[StoredItem], SecureStoreError> in
            Result { () throws(SecureStoreError) in
                try store.find(
                    .genericPassword(accessGroup: store.accessGroups.first, label: label), limit: .all, returning: .all)
            }
        }
        let items: [StoredItem]
        switch found {
        case .success(let found): items = found
        case .failure(.itemNotFound): return []
        case .failure(let error): throw .fromStore(error)
        }
        var byAccount: [AccountName: [StoredItem]] = [:]
        for item in items {
            guard let account = item.attributes?.string(.service).flatMap(account(ofService:)) else { continue }
            byAccount[account, default: []].append(item)
        }
        return byAccount.sorted { $0.key.value < $1.key.value }.map { account, items in
            let session = Result { () throws(AuthenticationError) -> Session? in
                do {
                    return try self.session(from: items)?.session
                } catch let error as AuthenticationError {
                    throw error
                } catch {
                    throw .storageFailed("unexpected failure")
                }
            }
            let record = items.first { $0.attributes?.string(.account) == Account.record }
            return StoredSession(
                account: account, session: session, signedInAt: record?.attributes?[.creationDate]?.dateValue)
        }
    }
}
