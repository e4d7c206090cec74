/// What the crash loop's store should hold: the items (account → data), the session's token pair,
/// and the key that opens it.
struct CrashModel: Equatable {
    /// Items of the service `crash`, by account.
    var items: [String: String] = [:]
    /// The session: its generation and both tokens.
    var session: Session?
    /// The key: `k:HEX` or `p:TEXT`.
    var key: String

    /// A session as the model holds it.
    struct Session: Equatable {
        let generation: Int
        let access: String
        let refresh: String
    }

    /// The model after `op`.
    func applying(_ op: CrashOp) -> CrashModel {
        var next = self
        switch op {
        case .add(let account, let data), .update(let account, let data):
            next.items[account] = data
        case .rename(let from, let to):
            next.items[to] = next.items.removeValue(forKey: from)
        case .delete(let account):
            next.items[account] = nil
        case .rotate(let generation, let access, let refresh):
            next.session = Session(generation: generation, access: access, refresh: refresh)
        case .rekey(let key), .rotateKey(let key):
            next.key = key
        }
        return next
    }
}
