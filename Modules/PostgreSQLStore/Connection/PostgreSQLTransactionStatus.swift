/// Where the connection stands with respect to transactions (`PQtransactionStatus`).
@_spi(HardtackTools) public enum PostgreSQLTransactionStatus: Sendable, Equatable {
    /// Not in a transaction block.
    case idle
    /// A command is in progress (never seen between calls of this layer, which always drains).
    case active
    /// In a transaction block that can still commit.
    case inTransaction
    /// In a transaction block that failed: only ROLLBACK (or ROLLBACK TO a savepoint) is accepted.
    case inFailedTransaction
    /// The connection is bad or closed.
    case unknown
}
