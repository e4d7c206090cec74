/// One logged write of the crash loop's writer, with everything needed to know its effect: the
/// writer logs `B seq op…` (durably) before it starts the write and `A seq` once the store returned.
enum CrashOp: Equatable {
    /// A new item.
    case add(account: String, data: String)
    /// New data for an item.
    case update(account: String, data: String)
    /// A new account name for an item (its unique key moves, its data is re-encrypted).
    case rename(from: String, to: String)
    /// An item deleted.
    case delete(account: String)
    /// A new session generation: both tokens at once.
    case rotate(generation: Int, access: String, refresh: String)
    /// The store's key changed (`k:HEX` raw key or `p:TEXT` passphrase).
    case rekey(key: String)
    /// A new master key, every item re-sealed under it, wrapped under `key`.
    case rotateKey(key: String)

    /// The op as one log line's fields.
    var encoded: String {
        switch self {
        case .add(let account, let data): "add \(account) \(data)"
        case .update(let account, let data): "update \(account) \(data)"
        case .rename(let from, let to): "rename \(from) \(to)"
        case .delete(let account): "delete \(account)"
        case .rotate(let generation, let access, let refresh): "rotate \(generation) \(access) \(refresh)"
        case .rekey(let key): "rekey \(key)"
        case .rotateKey(let key): "rotate-key \(key)"
        }
    }

    /// Decodes ``encoded``.
    init?(_ fields: [Substring]) {
        guard let name = fields.first else { return nil }
        let arguments = fields.dropFirst().map(String.init)
        switch (name, arguments.count) {
        case ("add", 2): self = .add(account: arguments[0], data: arguments[1])
        case ("update", 2): self = .update(account: arguments[0], data: arguments[1])
        case ("rename", 2): self = .rename(from: arguments[0], to: arguments[1])
        case ("delete", 1): self = .delete(account: arguments[0])
        case ("rotate", 3):
            guard let generation = Int(arguments[0]) else { return nil }
            self = .rotate(generation: generation, access: arguments[1], refresh: arguments[2])
        case ("rekey", 1): self = .rekey(key: arguments[0])
        case ("rotate-key", 1): self = .rotateKey(key: arguments[0])
        default: return nil
        }
    }
}
