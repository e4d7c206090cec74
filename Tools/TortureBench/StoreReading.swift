import Data
import Domain
import SQLiteStore

/// Reads a store the ways an app does, for comparison with what the bench wrote: a scan of each
/// class, a lookup of each item by its unique key, and a lookup of each primary attribute.
enum StoreReading {
    /// One answer the store gave, or the error it gave instead.
    enum Answer {
        /// The items a class scan or primary lookup returned (empty for "not found").
        case items(query: String, [ItemSpec])
        /// The item a unique lookup returned, or `nil` for "not found".
        case item(identity: String, ItemSpec?)
        /// The store refused: an error, with its kind.
        case failed(String)
    }

    /// Every item in the store, through class scans.
    static func all(_ store: SQLiteSecureItemStore) throws(SecureStoreError) -> [ItemSpec] {
        var items: [ItemSpec] = []
        for query in [ItemAttributes.genericPassword(), .internetPassword()] {
            items += try find(store, query)
        }
        return items.sorted()
    }

    /// The items `query` finds (empty when none), with data and attributes.
    static func find(_ store: SQLiteSecureItemStore, _ query: ItemAttributes) throws(SecureStoreError) -> [ItemSpec] {
        do {
            return try store.find(query, limit: .all, returning: .all).compactMap(ItemSpec.init)
        } catch .itemNotFound {
            return []
        }
    }

    /// Asks the store every question about `identities` (the items of any expected state).
    static func answers(_ store: SQLiteSecureItemStore, about expected: [ItemSpec]) -> [Answer] {
        var answers: [Answer] = []
        for (name, query) in [("generic", ItemAttributes.genericPassword()), ("internet", .internetPassword())] {
            do {
                answers.append(.items(query: "scan:\(name)", try find(store, query).sorted()))
            } catch {
                answers.append(.failed(kind(of: error)))
            }
        }
        var seenIdentities: Set<String> = []
        var seenPrimaries: Set<String> = []
        for spec in expected {
            if seenIdentities.insert(spec.identity).inserted {
                do {
                    answers.append(.item(identity: spec.identity, try find(store, spec.uniqueQuery).first))
                } catch {
                    answers.append(.failed(kind(of: error)))
                }
            }
            let primaryKey = spec.kind + "|" + spec.primary
            if seenPrimaries.insert(primaryKey).inserted {
                do {
                    answers.append(.items(query: "primary:\(primaryKey)", try find(store, spec.primaryQuery).sorted()))
                } catch {
                    answers.append(.failed(kind(of: error)))
                }
            }
        }
        return answers
    }

    /// Whether every non-error answer is what `state` (a complete list of items) would give.
    static func consistent(_ answers: [Answer], with state: [ItemSpec]) -> Bool {
        let byIdentity = Dictionary(state.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
        for answer in answers {
            switch answer {
            case .failed:
                continue
            case .item(let identity, let item):
                if item != byIdentity[identity] { return false }
            case .items(let query, let items):
                let expected: [ItemSpec]
                if query.hasPrefix("scan:") {
                    let kind = String(query.dropFirst("scan:".count))
                    expected = state.filter { $0.kind == kind }
                } else {
                    let key = String(query.dropFirst("primary:".count))
                    expected = state.filter { $0.kind + "|" + $0.primary == key }
                }
                if items != expected.sorted() { return false }
            }
        }
        return true
    }

    /// Says what the first answer that `state` does not explain got wrong.
    static func describeMismatch(_ answers: [Answer], _ state: [ItemSpec]) -> String {
        for answer in answers where !consistent([answer], with: state) {
            switch answer {
            case .item(let identity, let item):
                guard let item else { return "unique lookup of \(identity) said not found" }
                guard let expected = state.first(where: { $0.identity == identity }) else {
                    return "unique lookup of \(identity) found an item that does not exist"
                }
                let fields = [
                    item.secret != expected.secret ? "secret" : nil, item.label != expected.label ? "label" : nil,
                    item.comment != expected.comment ? "comment" : nil,
                ].compactMap { $0 }
                let owner = state.first { $0.secret == item.secret }.map { " = the secret of \($0.identity)" } ?? ""
                return
                    "unique lookup of \(identity) returned other values (\(fields.joined(separator: ","))\(owner); "
                    + "\(item.secret.count) bytes, expected \(expected.secret.count))"
            case .items(let query, let items):
                let expected = Set(
                    state.filter {
                        query.hasPrefix("scan:")
                            ? "scan:" + $0.kind == query : "primary:" + $0.kind + "|" + $0.primary == query
                    })
                let returned = Set(items)
                return
                    "\(query) returned \(items.count) items, expected \(expected.count): "
                    + "\(expected.subtracting(returned).count) missing, \(returned.subtracting(expected).count) unexpected"
            case .failed:
                continue
            }
        }
        return "answers match no single committed state"
    }

    /// A short name for an error's kind, for tallies.
    static func kind(of error: SecureStoreError) -> String {
        switch error {
        case .integrityFailure: "integrity"
        case .wrongKey: "wrong-key"
        case .storage(let failure): "storage(\(failure.kind))"
        case .keySourceMismatch: "key-source-mismatch"
        case .invalidKeyMaterial: "invalid-key"
        case .insecurePermissions: "permissions"
        case .locked: "locked"
        case .itemNotFound: "not-found"
        case .duplicateItem: "duplicate"
        default: "other"
        }
    }
}
