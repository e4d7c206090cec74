/// The four timed operations of the workload, in the order they run.
enum Operation: String, CaseIterable {
    /// Adds one new item, in its own transaction.
    case put
    /// Finds one item by service and account and returns its data.
    case get
    /// Replaces one item's secret, in its own transaction.
    case update
    /// Deletes one item, in its own transaction.
    case delete
}
