import Data
import Domain

/// What one read of a tampered item gave, for the PostgreSQL scenarios' tallies.
enum PGReadOutcome: String, CaseIterable {
    /// An integrity error: what every read of a tampered item must give.
    case integrity
    /// The right value, as if nothing had been touched.
    case unchanged
    /// "Not found", or a list without the item.
    case notFound = "not found"
    /// A value other than the one written.
    case wrong
    /// Another error.
    case other

    /// Classifies a read of the items `expected` (account → secret) that were asked for: `body` returns
    /// what the store found.
    static func classify(expected: [String: String], _ body: () throws(SecureStoreError) -> [StoredItem]) -> (
        PGReadOutcome, String?
    ) {
        let found: [StoredItem]
        do {
            found = try body()
        } catch .integrityFailure {
            return (.integrity, nil)
        } catch .itemNotFound {
            return (.notFound, nil)
        } catch {
            return (.other, "\(error)")
        }
        var values: [String: String] = [:]
        for item in found {
            let account = item.attributes?.string(.account) ?? "?"
            values[account] = item.data?.revealedString() ?? "?"
        }
        if values == expected { return (.unchanged, nil) }
        if expected.keys.contains(where: { values[$0] == nil }) { return (.notFound, nil) }
        return (.wrong, nil)
    }
}
