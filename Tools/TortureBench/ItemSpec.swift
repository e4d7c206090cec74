import Data
import Domain

/// One item as the bench writes and expects it: a generic or internet password with a few
/// attributes and its secret. Codable, so scenario processes and workers can share expectations.
struct ItemSpec: Codable, Hashable, Comparable {
    /// `generic` or `internet`.
    var kind: String
    /// The service (generic) or server (internet).
    var primary: String
    /// The account.
    var account: String
    /// The label, if any.
    var label: String?
    /// The comment, if any.
    var comment: String?
    /// The secret.
    var secret: [UInt8]

    /// What identifies the item: its class and unique key.
    var identity: String { "\(kind)|\(primary)|\(account)" }

    /// The attributes to add it with.
    var attributes: ItemAttributes {
        kind == "internet"
            ? .internetPassword(
                server: primary, account: account, protocol: .https, port: 443, label: label, comment: comment)
            : .genericPassword(service: primary, account: account, label: label, comment: comment)
    }

    /// A query that finds exactly this item (through the unique index for generic passwords).
    var uniqueQuery: ItemAttributes {
        kind == "internet"
            ? .internetPassword(server: primary, account: account, protocol: .https, port: 443)
            : .genericPassword(service: primary, account: account)
    }

    /// A query on the primary attribute alone (through the primary index).
    var primaryQuery: ItemAttributes {
        kind == "internet" ? .internetPassword(server: primary) : .genericPassword(service: primary)
    }

    /// The item a find returned, as a spec; `nil` when it lacks its attributes or data.
    init?(_ item: StoredItem) {
        guard let attributes = item.attributes, let data = item.data else { return nil }
        switch item.itemClass {
        case .genericPassword:
            kind = "generic"
            primary = attributes.string(.service) ?? ""
        case .internetPassword:
            kind = "internet"
            primary = attributes.string(.server) ?? ""
        default:
            return nil
        }
        account = attributes.string(.account) ?? ""
        label = attributes.string(.label)
        comment = attributes.string(.comment)
        secret = data.withUnsafeBytes { Array($0) }
    }

    /// A spec with these values.
    init(kind: String, primary: String, account: String, label: String?, comment: String?, secret: [UInt8]) {
        self.kind = kind
        self.primary = primary
        self.account = account
        self.label = label
        self.comment = comment
        self.secret = secret
    }

    static func < (lhs: ItemSpec, rhs: ItemSpec) -> Bool { lhs.identity < rhs.identity }
}
