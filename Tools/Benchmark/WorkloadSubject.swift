/// One implementation of the workload's four operations over one store, with every input prepared
/// before any timer starts: an operation takes only the position of the item it works on.
protocol WorkloadSubject: AnyObject {
    /// The name printed in `impl=`.
    var name: String { get }
    /// Adds item `item` with its first secret, in its own transaction.
    func put(_ item: Int) throws
    /// Finds item `item` by service and account and returns the length of its data.
    func get(_ item: Int) throws -> Int
    /// Replaces the secret of item `item` with update number `update`'s secret.
    func update(_ item: Int, _ update: Int) throws
    /// Deletes item `item`.
    func delete(_ item: Int) throws
    /// Moves the write-ahead log into the database file.
    func checkpoint() throws
    /// The database file's size in bytes.
    var fileSize: Int { get }
}
