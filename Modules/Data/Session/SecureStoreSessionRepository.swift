public import Domain
import Foundation

/// Keeps the session in the secure item store as generic-password items of one service: the access
/// token, the refresh token, a record of who and how, and, during a refresh, a claim. Every write is
/// one transaction, so a reader never sees a torn token pair.
public struct SecureStoreSessionRepository: SessionRepository {
    let store: any SecureItemStore
    private let service: String
    let claimantIsGone: @Sendable (String) -> Bool

    enum Account {
        static let accessToken = "access-token"
        static let refreshToken = "refresh-token"
        static let record = "session"
        static let claim = "refresh-claim"
        static let clientSecret = "client-secret"
        static let idToken = "id-token"
    }

    /// The service of the default account's items, which sessions stored before accounts existed use.
    public static let defaultService = "hardtack.session"
    /// Why a stored session cannot be read when a newer version wrote its record (a kind of sign-in or
    /// a record format this version does not know): the reason of the ``AuthenticationError/storeUnavailable(_:)``
    /// it throws, which a program can recognize to advise an upgrade.
    public static let recordOfNewerVersion =
        "the stored session record was written by a newer version (its kind or format is unknown to this one)"
    /// The label of every session item, which is how ``accounts(in:)`` finds them.
    static let label = "Hardtack session"

    /// The service under which `account`'s items are kept: the default account keeps the service of
    /// sessions stored before accounts existed; any other account's name follows it, exactly as given
    /// (attribute values are encrypted at rest and found through blind indexes).
    public static func service(for account: AccountName) -> String {
        account.isDefault ? defaultService : defaultService + "/" + account.value
    }

    /// A repository over `store` for one account's session. Each account's session, claim and
    /// refresh are its own: writing, refreshing or signing out one never touches another.
    public init(
        store: any SecureItemStore, account: AccountName,
        claimantIsGone: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        self.init(store: store, service: Self.service(for: account), claimantIsGone: claimantIsGone)
    }

    /// Every account that has a session in `store` (in the handle's first access group, where its
    /// sessions live), the default one
    /// included when it has one; sorted by name.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store is locked or damaged.
    public static func accounts(in store: any SecureItemStore) async throws(AuthenticationError) -> [AccountName] {
        do throws(SecureStoreError) {
            return try await accountNames(in: store)
        } catch {
            throw .fromStore(error)
        }
    }

    /// ``accounts(in:)`` with the store's own error, for a caller that reports store failures as such (a
    /// locked store, a server that is down, and damage each keep their kind).
    package static func accountNames(in store: any SecureItemStore) async throws(SecureStoreError) -> [AccountName] {
        let found = await StoreThreads.run { () -> Result<[StoredItem], SecureStoreError> in
            Result { () throws(SecureStoreError) in
                try store.find(
                    .genericPassword(account: Account.record, accessGroup: store.accessGroups.first, label: label),
                    limit: .all, returning: .attributes)
            }
        }
        let records: [StoredItem]
        switch found {
        case .success(let items): records = items
        case .failure(.itemNotFound): return []
        case .failure(let error): throw error
        }
        let names = Set(records.compactMap { $0.attributes?.string(.service).flatMap(account(ofService:)) })
        return names.sorted { Array($0.value.utf8).lexicographicallyPrecedes(Array($1.value.utf8)) }
    }

    /// Whether `service` is one under which sessions are kept (the default account's, or any other
    /// account's below it): its items are written only through the use cases.
    public static func keepsSessions(inService service: String) -> Bool {
        service == defaultService || service.hasPrefix(defaultService + "/")
    }

    /// The account whose items are kept under `service`, or `nil` when it is no session's service.
    public static func account(ofService service: String) -> AccountName? {
        if service == defaultService { return .default }
        guard service.hasPrefix(defaultService + "/") else { return nil }
        return AccountName(String(service.dropFirst(defaultService.count + 1)))
    }

    /// Creates a repository over `store`, keeping its items under `service`.
    /// - Parameter claimantIsGone: whether the owner of a refresh claim is known to have ended (a process
    ///   killed mid-refresh): its claim then holds nobody back. By default no owner is known to be gone,
    ///   and a claim holds until its lease runs out.
    public init(
        store: any SecureItemStore, service: String = defaultService,
        claimantIsGone: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        self.store = store
        self.service = service
        self.claimantIsGone = claimantIsGone
    }

    /// The account's session, read item by item by unique key, else the whole service in one snapshot.
    public func load() async throws(AuthenticationError) -> Session? {
        try await run { try readByUniqueKeys() ?? read(from: store)?.session }
    }

    /// The session read item by item, each by its unique key, or `nil` when any of them is not found
    /// or cannot be read (the caller then reads the whole service, which tells "signed out" and damage
    /// apart). A lookup that finds its item needs no pass over the store's rows against the rows digest
    /// (only "none" and "all of them" do), so a launch decision in a store of many accounts costs what
    /// it costs in a store of one. The items are read one query each, not in one snapshot, so the record
    /// is read first and again last: every write of a session writes a new record (its token times), so
    /// the same record on both sides means no write came between, and the tokens read are that record's
    /// generation. Otherwise (a refresh committed meanwhile) the whole service is read in one snapshot.
    /// (Tokens of two generations paired would cost a needless refresh: an old access token under a new
    /// record's expiry answers 401, and the new refresh token would be presented again.)
    private func readByUniqueKeys() -> Session? {
        func data(_ account: String) -> SecretBytes? {
            // Attributes too: opening them is what notices an attribute ciphertext swapped in from
            // another row (the data alone would still read as this item's, and the read must say damage).
            guard
                case .found(let item) = store.lookup(
                    .genericPassword(service: service, account: account, accessGroup: group), returning: [.data, .attributes])
            else {
                return nil
            }
            return item.data
        }
        guard let recordData = data(Account.record), let access = data(Account.accessToken),
            let refresh = data(Account.refreshToken),
            let record = try? Self.decode(SessionRecordDTO.self, recordData)
        else { return nil }
        // A client secret is kept exactly when the record says so.
        var clientSecret: SecretBytes?
        if record.clientSecretKept == true {
            guard let secret = data(Account.clientSecret) else { return nil }
            clientSecret = secret
        }
        var idToken: SecretBytes?
        if record.idTokenKept == true {
            guard let token = data(Account.idToken) else { return nil }
            idToken = token
        }
        guard let again = data(Account.record), again == recordData else { return nil }
        return try? record.session(access: access, refresh: refresh, clientSecret: clientSecret, idToken: idToken)
    }

    /// Writes `session`'s items and drops any refresh claim, in one transaction.
    public func replace(with session: Session) async throws(AuthenticationError) {
        try await replace(with: session, alongside: nil)
    }

    /// Writes `session`'s items, and `companion` with them, and drops any refresh claim, in one transaction.
    public func replace(with session: Session, alongside companion: CompanionItem?) async throws(AuthenticationError) {
        try await run {
            try store.transaction { transaction in
                try write(session, to: transaction, replacedMayHaveSecret: true)
                try transaction.delete(item(Account.claim))
                if let companion { try transaction.addOrUpdate(companion.attributes, data: companion.data) }
            }
        }
    }

    /// Deletes every item of the account's service; whether there was any.
    public func delete() async throws(AuthenticationError) -> Bool {
        try await run { try store.delete(.genericPassword(service: service, accessGroup: group)) > 0 }
    }

    /// Deletes the session in one transaction if its refresh token is still `refreshToken`.
    public func deleteIfCurrent(_ refreshToken: RefreshToken) async throws(AuthenticationError) -> Bool {
        try await run {
            try store.transaction { transaction -> Bool in
                guard let current = try read(from: transaction),
                    current.session.refreshToken.isSameToken(as: refreshToken)
                else { return false }
                return try transaction.delete(.genericPassword(service: service, accessGroup: group)) > 0
            }
        }
    }

    // MARK: Items

    func item(_ account: String) -> ItemAttributes {
        .genericPassword(service: service, account: account, accessGroup: group, label: Self.label)
    }

    /// Reads every item of the session with one query, so the pair is read as one snapshot.
    func read(from transaction: any SecureItemTransaction) throws -> (session: Session, claim: RefreshClaimDTO?)? {
        try Self.session(from: try sessionItems(in: transaction))
    }

    /// The session, and its claim, that one service's `items` hold (`nil`: none).
    static func session(from items: [StoredItem]) throws -> (session: Session, claim: RefreshClaimDTO?)? {
        if items.isEmpty { return nil }
        var byAccount: [String: SecretBytes] = [:]
        for item in items {
            if let account = item.attributes?.string(.account), let data = item.data { byAccount[account] = data }
        }
        guard let access = byAccount[Account.accessToken], let refresh = byAccount[Account.refreshToken],
            let recordData = byAccount[Account.record]
        else {
            // Only a claim, or nothing of ours: no session. A pair without its record cannot be
            // written by this repository (every write is one transaction).
            if byAccount[Account.accessToken] == nil && byAccount[Account.refreshToken] == nil { return nil }
            throw AuthenticationError.storeUnavailable("the stored session is incomplete")
        }
        let record = try decode(SessionRecordDTO.self, recordData)
        let claim = try byAccount[Account.claim].map { data in try decode(RefreshClaimDTO.self, data) }
        let session = try record.session(
            access: access, refresh: refresh, clientSecret: byAccount[Account.clientSecret],
            idToken: record.idTokenKept == true ? byAccount[Account.idToken] : nil)
        return (session, claim)
    }

    /// The access group the sessions of this handle live in: its first, where it writes. A handle that
    /// reads several groups would otherwise see one account's sessions of two tenants as one.
    private var group: String? { store.accessGroups.first }

    /// Every item of the service, or none.
    private func sessionItems(in transaction: any SecureItemTransaction) throws(SecureStoreError) -> [StoredItem] {
        do {
            return try transaction.find(.genericPassword(service: service, accessGroup: group), limit: .all, returning: .all)
        } catch {
            if error == .itemNotFound { return [] }
            throw error
        }
    }

    /// Writes the session's items; `replacedMayHaveSecret` says whether the session it replaces may have
    /// left a client secret or an ID token (unknown at sign-in; known from the stored session during a
    /// refresh).
    func write(_ session: Session, to transaction: any SecureItemTransaction, replacedMayHaveSecret: Bool) throws {
        try transaction.addOrUpdate(item(Account.refreshToken), data: session.refreshToken.value)
        try transaction.addOrUpdate(item(Account.accessToken), data: session.accessToken.value)
        try transaction.addOrUpdate(item(Account.record), value: SessionRecordDTO(session))
        // The client secret, for the providers that demand one, is a secret: an item of its own, never
        // a field of the record. A session without one leaves none of an earlier session behind.
        // Deleted only when one may be there: a delete that finds nothing is an answer ("none") the store
        // confirms against its rows digest, a pass over the rows after a write.
        if let secret = session.issuer?.clientSecret {
            try transaction.addOrUpdate(item(Account.clientSecret), data: secret)
        } else if replacedMayHaveSecret {
            try transaction.delete(item(Account.clientSecret))
        }
        // The ID token names the user: an item of its own too, kept for as long as the session.
        if let identity = session.identity {
            try transaction.addOrUpdate(item(Account.idToken), data: identity.idToken)
        } else if replacedMayHaveSecret {
            try transaction.delete(item(Account.idToken))
        }
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, _ data: SecretBytes) throws(AuthenticationError)
        -> Value
    {
        do {
            var copy = data.withUnsafeBytes { Data($0) }
            defer { copy.resetBytes(in: 0..<copy.count) }
            return try JSONDecoder().decode(type, from: copy)
        } catch {
            throw .storeUnavailable("the stored session record cannot be read")
        }
    }

    /// Runs `body` on the store's threads (``StoreThreads``), translating store errors: locked or
    /// damaged is "unavailable", never "signed out".
    func run<Result>(_ body: () throws -> Result) async throws(AuthenticationError) -> Result {
        try await StoreThreads.run { () throws(AuthenticationError) -> Result in
            do {
                return try body()
            } catch let error as AuthenticationError {
                throw error
            } catch let error as SecureStoreError {
                throw .fromStore(error)
            } catch {
                throw .storageFailed("unexpected failure")
            }
        }
    }
}
