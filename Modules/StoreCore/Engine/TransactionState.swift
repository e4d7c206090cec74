package import Synchronization

/// Whether a transaction handed to a body is still open; shared by its copies.
package final class TransactionState: Sendable {
    /// True until the transaction's closure returns or throws.
    package let isOpen = Atomic<Bool>(true)

    /// An open transaction's state.
    package init() {}
}
