import Synchronization

/// Whether a transaction handed to a body is still open; shared by its copies.
final class TransactionState: Sendable {
    /// True until the transaction's closure returns or throws.
    let isOpen = Atomic<Bool>(true)
}
