/// The port to an encrypted item store with Keychain Services semantics (`SecureItemStore` is what the
/// Data layer needs; the store adapters, `SQLiteSecureItemStore`, `PostgreSQLSecureItemStore` and
/// `MemorySecureItemStore`, provide it).
///
/// A store handle belongs to a client with one or more access groups: it sees and changes only items
/// in those groups and adds new ones to the first.
public protocol SecureItemStore: SecureItemTransaction, Sendable {
    /// The access groups this handle belongs to; new items go to the first.
    var accessGroups: [String] { get }

    /// Runs `body` in one transaction: its writes commit together when it returns, or not at all when
    /// it throws. Use the transaction it is given, not the store, inside `body`.
    /// - Throws: what `body` throws, or ``SecureStoreError`` when the transaction cannot start or commit.
    func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result

    /// A number that moves with every commit to the store, by this handle or any other, process or
    /// machine: two equal marks mean nothing was committed between the two calls, so what was read after
    /// the first is still what the store holds. `nil` when the store cannot tell without reading rows
    /// (PostgreSQL, always), or not now (locked, failed, inside the handle's own transaction, or, unless
    /// `waiting`, whatever reads the mark busy or the store locked by another connection: without `waiting`
    /// it never waits for a lock); then read.
    func changeMark(waiting: Bool) -> UInt64?
}

extension SecureItemStore {
    /// Not known: the caller reads.
    public func changeMark(waiting: Bool) -> UInt64? { nil }
}
